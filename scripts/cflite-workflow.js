'use strict';
// What the ClusterFuzzLite actions need of a GitHub workflow, by their own
// code (google/oss-fuzz infra/cifuzz/, which builds the images that
// google/clusterfuzzlite's actions/*/action.yml run): build_fuzzers and
// run_fuzzers read base_os_version from
// $GITHUB_WORKSPACE/<project-src-path>/.clusterfuzzlite/project.yaml
// (config_utils.py, BaseConfig.base_os_version; platform_config/github.py)
// before they clone anything, and without that file they run on the legacy
// Ubuntu 20.04 images, with no pivot to the ubuntu-24-04 ones
// (build_fuzzers_entrypoint.py, run_fuzzers_entrypoint.py). So a project that
// asks for another base OS needs an actions/checkout step of its own
// repository, at that path, before the first of them in the job.

const path = require('node:path');
const yaml = require('js-yaml');

const cfliteAction = /^google\/clusterfuzzlite\/actions\/(build_fuzzers|run_fuzzers)@/;
const checkoutAction = /^actions\/checkout@/;

// A workspace-relative path as the actions join it: '' for the workspace itself.
function relative(p) {
  const normal = path.posix.normalize(`${p ?? ''}`.trim() || '.').replace(/\/$/, '');
  return normal === '.' ? '' : normal;
}

// One { ok, line } per ClusterFuzzLite step of the workflow's jobs, judged for
// a project whose project.yaml asks for `baseOsVersion` ('legacy' when none).
function checkWorkflow(text, baseOsVersion) {
  const workflow = yaml.load(text);
  const results = [];
  for (const [job, { steps = [] } = {}] of Object.entries(workflow?.jobs ?? {})) {
    const checkedOut = new Set();
    for (const step of steps) {
      const uses = `${step?.uses ?? ''}`;
      if (checkoutAction.test(uses) && step.with?.repository === undefined) checkedOut.add(relative(step.with?.path));
      const action = cfliteAction.exec(uses)?.[1];
      if (!action) continue;
      const src = relative(step.with?.['project-src-path']);
      const where = path.posix.join('$GITHUB_WORKSPACE', src, '.clusterfuzzlite', 'project.yaml');
      if (baseOsVersion === 'legacy') {
        results.push({ ok: true, line: `jobs.${job}: ${action}: the legacy images need no project.yaml` });
      } else if (checkedOut.has(src)) {
        results.push({ ok: true, line: `jobs.${job}: ${action} reads base_os_version ${baseOsVersion} from ${where}, ` +
          'checked out before it' });
      } else {
        results.push({ ok: false, line: `jobs.${job}: ${action} reads base_os_version from ${where}, and no ` +
          `actions/checkout step before it puts the repository ${src ? `at ${src}` : 'there'}: it runs on the legacy ` +
          `Ubuntu 20.04 images, not ${baseOsVersion}` });
      }
    }
  }
  return results;
}

module.exports = { checkWorkflow };
