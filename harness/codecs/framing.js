'use strict';
// The framing of `parseChannelMessages` in lib/internal/child_process/serialization.js,
// around any payload decoder. Observable quirks are kept on purpose:
// - the read position moves past a frame before its payload is decoded, so a
//   malformed frame is skipped and later reads go on after it;
// - `buffering` is only updated when a read ends without an error;
// - a length field split across reads is joined before it is read (nodejs/node#55834);
// - the length is read as unsigned, so prefixes >= 2^31 wait for more data (#61312).

function readLength(bytes) {
  return ((bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]) >>> 0);
}

// `readLength` is replaceable only so that a mutant adapter can get it wrong.
function createReferenceFramer(deserialize, { readLength: lengthOf = readLength } = {}) {
  let pending = [];
  let pendingSize = 0;
  let buffering = false;

  function* push(chunk) {
    if (chunk.length === 0) return;
    if (pendingSize && pending[0].length < 4) {
      pending[0] = Buffer.concat([pending[0], chunk]);
    } else {
      pending.push(chunk);
    }
    pendingSize += chunk.length;

    let head = pending[0];
    while (head.length >= 4) {
      const frameSize = lengthOf(head) + 4;
      if (pendingSize < frameSize) break;
      const joined = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingSize);
      const payload = joined.subarray(4, frameSize);
      head = joined.subarray(frameSize);
      pendingSize = head.length;
      pending = pendingSize !== 0 ? [head] : [];
      yield deserialize(payload);
    }
    buffering = pendingSize > 0;
  }

  return { push, buffering: () => buffering };
}

module.exports = { createReferenceFramer, readLength };
