'use strict';
// The symbol versions an ELF object needs from its libraries (GLIBC_2.34 from
// libc.so.6, GLIBCXX_3.4.30 from libstdc++.so.6, ...), read from its
// .gnu.version_r section with no binutils. The dynamic loader refuses an object
// whose non-weak needs its system's libraries do not define; weak ones (as
// scripts/jazzer-compat.js makes some) only warn.

const fs = require('node:fs');

const SHT_GNU_VERNEED = 0x6ffffffe;
const VER_FLG_WEAK = 0x2;

const EM_X86_64 = 62;

// 'x86-64', another machine's name ('machine 183'), or null for a file that is not ELF.
function elfMachine(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(20);
    const magic = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
    if (fs.readSync(fd, head, 0, 20, 0) !== 20 || !head.subarray(0, 4).equals(magic)) return null;
    const machine = head[5] === 1 ? head.readUInt16LE(18) : head.readUInt16BE(18);
    return machine === EM_X86_64 ? 'x86-64' : `machine ${machine}`;
  } finally {
    fs.closeSync(fd);
  }
}

// [{ library, version, weak }] of a 64-bit little-endian ELF file.
function versionNeeds(file) {
  const fd = fs.openSync(file, 'r');
  const read = (offset, length) => {
    const b = Buffer.alloc(length);
    fs.readSync(fd, b, 0, length, offset);
    return b;
  };
  try {
    const header = read(0, 64);
    if (header[4] !== 2 || header[5] !== 1) throw new Error(`${file}: not a 64-bit little-endian ELF file`);
    const shoff = Number(header.readBigUInt64LE(0x28));
    const shentsize = header.readUInt16LE(0x3a);
    const shnum = header.readUInt16LE(0x3c);
    const sections = [];
    for (let i = 0; i < shnum; i++) {
      const s = read(shoff + i * shentsize, 64);
      sections.push({ type: s.readUInt32LE(4), offset: Number(s.readBigUInt64LE(24)),
        size: Number(s.readBigUInt64LE(32)), link: s.readUInt32LE(40), info: s.readUInt32LE(44) });
    }
    const needs = [];
    for (const section of sections.filter((s) => s.type === SHT_GNU_VERNEED)) {
      const strtab = sections[section.link];
      const strings = read(strtab.offset, strtab.size);
      const name = (at) => strings.toString('latin1', at, strings.indexOf(0, at));
      const body = read(section.offset, section.size);
      for (let i = 0, vn = 0; i < section.info; i++) {
        const library = name(body.readUInt32LE(vn + 4));
        for (let j = 0, aux = vn + body.readUInt32LE(vn + 8); j < body.readUInt16LE(vn + 2); j++) {
          const weak = Boolean(body.readUInt16LE(aux + 4) & VER_FLG_WEAK);
          needs.push({ library, version: name(body.readUInt32LE(aux + 8)), weak });
          aux += body.readUInt32LE(aux + 12);
        }
        vn += body.readUInt32LE(vn + 12);
      }
    }
    return needs;
  } finally {
    fs.closeSync(fd);
  }
}

const versionParts = (v) => v.split('.').map(Number);
function compareVersions(a, b) {
  const [x, y] = [versionParts(a), versionParts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return 0;
}

// The highest non-weak need with this prefix ('GLIBC_', 'GLIBCXX_'), as '2.34', or null.
function highestNeed(needs, prefix) {
  const versions = needs.filter((n) => !n.weak && n.version.startsWith(prefix))
    .map((n) => n.version.slice(prefix.length)).filter((v) => /^[\d.]+$/.test(v));
  return versions.sort(compareVersions).at(-1) ?? null;
}

module.exports = { elfMachine, versionNeeds, highestNeed, compareVersions };
