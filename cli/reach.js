'use strict';
// The reachability step of fuzz and gate: once a run's engines have ended,
// its finding folders are checked through child_process
// (harness/findings/reach: in the build under test and in the reference release),
// within the share of the run's budget kept for it; what is not checked by
// then says so. Also the lines the terminal listings show of a verdict.

const fs = require('node:fs');
const path = require('node:path');
const { checkFindings, reachSeconds, notCheckedText } = require('../harness/findings/reach');
const { FindingStore } = require('../harness/findings/recorder');

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

// The verdict saved with a finding (undefined before its check).
function reachabilityOf(folder) {
  try {
    return FindingStore.read(folder).reachability;
  } catch {
    return undefined;
  }
}

// That verdict for a listing: one line.
const reachLine = (folder) => reachabilityOf(folder)?.verdict ?? notCheckedText;

module.exports = { checkRun, reachLine, reachabilityOf, reachSeconds };
