'use strict';
// What a codec can do, which the rooms above ask of it instead of checking
// its name (as Cryptofuzz's executor asks a module): each codec module
// exports `capabilities`, made here from what it says with the rest
// defaulted as an adapter file's are, since what an adapter can do is not
// known before it runs.

const kAdapter = Object.freeze({
  reference: false,     // the frozen copy of 26.3.1's codec, whose writing changes nothing
  mayCrash: true,       // a call may take its process down (a native codec's)
  plainDecode: false,   // what it decodes is V8's deserializer's own work, its prototypes plain (canonical.js)
  sharesProcess: false, // its checks run beside the other codec's in one process and in batches
  needs: null,          // what the binary must have for it, by its probe's name (ipcSerdes, builtin)
  words: null,          // how a finding's title names it: { full, short }; an adapter is named by its file
  script: null,         // the expression a short repro.js loads it with; an adapter, by its file
});

const capabilities = (own) => Object.freeze({ ...kAdapter, plainDecode: true, sharesProcess: true, ...own });

module.exports = { capabilities, kAdapter };
