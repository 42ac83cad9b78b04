#!/usr/bin/env node
'use strict';
// Make the Linux prebuilt addon of @jazzer.js/fuzzer load on older glibc /
// libstdc++ (e.g. Debian 12: glibc 2.36, GCC 12).
//
// The prebuilt is linked on a glibc 2.38 / GCC 13 system and therefore asks for
//   __isoc23_strtol@GLIBC_2.38, __isoc23_strtoul@GLIBC_2.38   (C23 strtol*)
//   _ZSt21ios_base_library_initv@GLIBCXX_3.4.32               (GCC 13 marker)
// The C23 functions differ from the classic ones only in accepting "0b"
// prefixes, and the libstdc++ symbol is a link-time marker that is never
// called (no relocation refers to it). So, in place and without growing the
// file, we:
//   * point each __isoc23_strto*/wcsto* symbol name at the classic name (a
//     suffix of the same .dynstr string) and bind it to libc's base version;
//   * make the marker symbol weak and unversioned;
//   * flag the then-unused GLIBC_2.38 / GLIBCXX_3.4.32 version needs as
//     VER_FLG_WEAK so ld.so no longer insists on them.
// No shim library, compiler or environment variable is needed afterwards.
//
// Usage: node scripts/jazzer-compat.js [--root DIR]   (DIR holds node_modules)
// Exit: 0 ok / nothing to do, 2 on any problem (one line on stderr).

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const MISSING = new Set(['GLIBC_2.38', 'GLIBCXX_3.4.32']);
const MARKER = '_ZSt21ios_base_library_initv';
const C23 = /^__isoc23_((?:strto|wcsto)\w+)$/;

function die(msg) {
  process.stderr.write(`jazzer-compat: error: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  let root = path.resolve(__dirname, '..');
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root' && argv[i + 1]) root = path.resolve(argv[++i]);
    else if (argv[i].startsWith('--root=')) root = path.resolve(argv[i].slice(7));
    else die(`unknown argument ${argv[i]} (usage: jazzer-compat.js [--root DIR])`);
  }
  return root;
}

// All installed copies of @jazzer.js/fuzzer reachable from root: the hoisted
// one and any nested under the Jazzer.js packages that depend on it.
function fuzzerPackages(root) {
  const resolveDir = (pkg, from) => {
    try {
      return path.dirname(require.resolve(`${pkg}/package.json`, { paths: [from] }));
    } catch {
      return null;
    }
  };
  const froms = [root];
  for (const dep of ['core', 'instrumentor', 'bug-detectors', 'hooking']) {
    froms.push(resolveDir(`@jazzer.js/${dep}`, root));
  }
  const dirs = froms.filter(Boolean).map((from) => resolveDir('@jazzer.js/fuzzer', from));
  return [...new Set(dirs.filter(Boolean))];
}

// Load the package in a fresh node so a failing dlopen cannot hurt us.
function tryLoad(pkgDir) {
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(pkgDir)})`], { encoding: 'utf8' });
  if (r.status === 0) return null;
  const err = `${r.stderr}`.split('\n').find((l) => /Error|not found/.test(l));
  return (err || (r.signal ? `killed by ${r.signal}` : `exit ${r.status}`)).trim();
}

// --- minimal ELF64 little-endian reader for the dynamic symbol versioning ---
const SHT_DYNSYM = 11, SHT_VERNEED = 0x6ffffffe, SHT_VERSYM = 0x6fffffff;
const VER_FLG_WEAK = 0x2, STB_WEAK = 2;

function cstr(buf, off) {
  return buf.toString('latin1', off, buf.indexOf(0, off));
}

function patchElf(buf) {
  if (buf.readUInt32BE(0) !== 0x7f454c46 || buf[4] !== 2 || buf[5] !== 1) {
    throw new Error('not an ELF64 little-endian file');
  }
  const shoff = Number(buf.readBigUInt64LE(0x28));
  const shentsize = buf.readUInt16LE(0x3a), shnum = buf.readUInt16LE(0x3c);
  const sec = {};
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    const type = buf.readUInt32LE(o + 4);
    sec[type] = sec[type] || {
      off: Number(buf.readBigUInt64LE(o + 0x18)),
      size: Number(buf.readBigUInt64LE(o + 0x20)),
      link: buf.readUInt32LE(o + 0x28),
    };
  }
  const dynsym = sec[SHT_DYNSYM], verneed = sec[SHT_VERNEED], versym = sec[SHT_VERSYM];
  if (!dynsym || !verneed || !versym) throw new Error('no dynsym/version sections');
  const dynstr = Number(buf.readBigUInt64LE(shoff + dynsym.link * shentsize + 0x18));

  // Version index -> { file, name, flagsAt } from .gnu.version_r.
  const versions = new Map();
  for (let vn = verneed.off; ; ) {
    const cnt = buf.readUInt16LE(vn + 2);
    const file = cstr(buf, dynstr + buf.readUInt32LE(vn + 4));
    for (let i = 0, a = vn + buf.readUInt32LE(vn + 8); i < cnt; i++) {
      versions.set(buf.readUInt16LE(a + 6) & 0x7fff, {
        file, name: cstr(buf, dynstr + buf.readUInt32LE(a + 8)), flagsAt: a + 4,
      });
      const next = buf.readUInt32LE(a + 12);
      if (!next) break;
      a += next;
    }
    const next = buf.readUInt32LE(vn + 12);
    if (!next) break;
    vn += next;
  }

  // Oldest libc version (GLIBC_2.2.5 on x86_64), where strtol & co. live.
  const key = (n) => n.slice(6).split('.').map((x) => x.padStart(4, '0')).join('.');
  const older = (a, b) => key(a) < key(b);
  let baseIdx = 0, baseName = null;
  for (const [idx, v] of versions) {
    if (v.file.startsWith('libc.so') && /^GLIBC_\d/.test(v.name) && (!baseName || older(v.name, baseName))) {
      baseIdx = idx; baseName = v.name;
    }
  }
  if (!baseIdx) throw new Error('no libc base version in .gnu.version_r');

  const changed = [];
  for (let i = 0, n = dynsym.size / 24; i < n; i++) {
    const s = dynsym.off + i * 24, vs = versym.off + i * 2;
    const ver = versions.get(buf.readUInt16LE(vs) & 0x7fff);
    if (!ver || !MISSING.has(ver.name)) continue;
    const nameOff = buf.readUInt32LE(s);
    const name = cstr(buf, dynstr + nameOff);
    const m = C23.exec(name);
    if (m && buf.readUInt16LE(s + 6) === 0) {
      // The classic name is a suffix of the same string: no .dynstr edit.
      buf.writeUInt32LE(nameOff + name.length - m[1].length, s);
      buf.writeUInt16LE(baseIdx, vs);
      changed.push(`${name}->${m[1]}@${baseName}`);
    } else if (name === MARKER && buf.readUInt16LE(s + 6) === 0) {
      buf[s + 4] = (STB_WEAK << 4) | (buf[s + 4] & 0xf);
      buf.writeUInt16LE(1, vs); // VER_NDX_GLOBAL: unversioned
      changed.push(`${name} weak`);
    } else {
      throw new Error(`cannot redirect ${name}@${ver.name}`);
    }
  }
  // Every symbol that needed these versions is redirected now.
  const weakened = [];
  for (const v of versions.values()) {
    if (MISSING.has(v.name)) {
      buf.writeUInt16LE(buf.readUInt16LE(v.flagsAt) | VER_FLG_WEAK, v.flagsAt);
      weakened.push(v.name);
    }
  }
  return { changed, weakened };
}

function show(file) {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}

function fixPackage(pkgDir) {
  const file = path.join(pkgDir, 'prebuilds', `fuzzer-${process.platform}-${process.arch}.node`);
  const orig = `${file}.orig`;
  const err = tryLoad(pkgDir);
  if (!err) {
    return fs.existsSync(orig) ? `prebuilt loads (already patched: ${show(file)})`
      : `prebuilt loads as is (${show(file)})`;
  }
  if (!/version `(GLIBC_2\.38|GLIBCXX_3\.4\.32)' not found/.test(err)) {
    throw new Error(`${pkgDir} does not load: ${err}`);
  }
  const buf = fs.readFileSync(file);
  const { changed, weakened } = patchElf(buf);
  if (changed.length === 0) throw new Error(`${file} is already patched but does not load: ${err}`);
  // The file had symbols to redirect, so it is pristine: keep it as backup.
  fs.writeFileSync(orig, fs.readFileSync(file));
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, buf);
  fs.renameSync(tmp, file); // atomic: a concurrent loader never sees half a file
  const after = tryLoad(pkgDir);
  if (after) {
    fs.copyFileSync(orig, file);
    throw new Error(`${file} still does not load after patching: ${after}`);
  }
  return `patched ${show(file)} (weak ${weakened.join(', ')}; ${changed.join(', ')})`;
}

function main() {
  const root = parseArgs(process.argv.slice(2));
  if (process.platform !== 'linux') { console.log('jazzer-compat: not Linux, nothing to do'); return; }
  const pkgs = fuzzerPackages(root);
  if (pkgs.length === 0) die(`@jazzer.js/fuzzer is not installed under ${root}`);
  for (const pkg of pkgs) {
    try {
      console.log(`jazzer-compat: ${fixPackage(pkg)}`);
    } catch (e) {
      die(e.message);
    }
  }
}

main();
