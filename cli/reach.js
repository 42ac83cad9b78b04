'use strict';
// The last step of fuzz and gate: once a run's engines have ended, its
// finding folders are checked through child_process (harness/findings/reach:
// in the build under test and in the reference release, writing each one's
// short repro scripts and issue.md) within the share of the run's budget
// kept for it, what is not checked by then says so, and the run's review
// (review.md, review-repro.js) is written. Also what the terminal listings
// show of a finding.

const fs = require('node:fs');
const path = require('node:path');
const { checkFindings, reachSeconds, reachabilityOf, notCheckedText } = require('../harness/findings/reach');
const { writeReview } = require('../harness/findings/review');
const { FindingStore } = require('../harness/findings/recorder');
const { titleOf } = require('../harness/findings/words');

// The run's findings folders that hold a finding, each once.
function findingFolders(folders) {
  return [...new Set(folders.filter((f) => f && fs.existsSync(path.join(f, 'finding.json'))))];
}

// Checks `folders` until `deadline`; tells progress(text) how far it got.
async function checkRun(folders, { build, timeoutMs, deadline, progress = () => {} }) {
  const todo = findingFolders(folders);
  if (!todo.length) return new Map();
  let done = 0;
  progress(`checking ${todo.length} finding${todo.length === 1 ? '' : 's'} through child_process`);
  return checkFindings(todo, {
    build, timeoutMs, deadline,
    onChecked: () => progress(`checked ${++done} of ${todo.length} through child_process`),
  });
}

// review.md and review-repro.js in `dir` of the run's causes; gives the line that points at them.
function reviewRun(dir, folders, sides) {
  const side = (s) => ({ codec: s.codec, version: s.info?.node ?? s.version });
  const { review, repro, rows, causes } = writeReview(dir, findingFolders(folders),
    { sides: { a: side(sides.a), b: side(sides.b) } });
  const at = (file) => path.relative(process.cwd(), file) || file;
  const checks = causes.filter((c) => c.reachable).length;
  return `review: ${at(review)} (${rows} row${rows === 1 ? '' : 's'}); node ${at(repro)} runs its ${checks} check` +
    `${checks === 1 ? '' : 's'}`;
}

// A finding's title: as its check wrote it, else made from finding.json.
function titleLine(folder) {
  const title = reachabilityOf(folder)?.title;
  if (title) return title;
  try {
    return titleOf(FindingStore.read(folder));
  } catch {
    return undefined;
  }
}

// The verdict saved with a finding, for a listing: one line.
const reachLine = (folder) => reachabilityOf(folder)?.verdict ?? notCheckedText;

module.exports = { checkRun, reviewRun, reachLine, titleLine, reachabilityOf, reachSeconds, findingFolders };
