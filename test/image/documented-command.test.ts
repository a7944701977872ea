/**
 * The container examples start the node with its home at DAEMON_HOME (issue #43: without `--home` an
 * SDK node writes under `$HOME/.<app>` and chainvisor misses every upgrade): docs/container.md's
 * command, the StatefulSet's args and the image's CMD are one command, whose `--home` is DAEMON_HOME.
 * test/image/container.test.ts runs that command in the image through an upgrade.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { containerDocArgs, homeFlag, imageDefaults, statefulSetNode } from '../support/documented-command.js';

describe('the documented container command', () => {
  test("docs/container.md starts the node with --home at the image's DAEMON_HOME", () => {
    const args = containerDocArgs();
    assert.deepEqual(args.slice(0, 2), ['run', 'start'], `docs/container.md: ${args.join(' ')}`);
    assert.equal(homeFlag(args), imageDefaults().daemonHome, `docs/container.md: ${args.join(' ')}`);
  });

  test("the StatefulSet's node runs the same command, with --home at its DAEMON_HOME", () => {
    const node = statefulSetNode();
    assert.deepEqual(node.args, containerDocArgs(), 'docs/k8s/statefulset.yaml args and docs/container.md');
    assert.equal(homeFlag(node.args), node.env.DAEMON_HOME, 'statefulset.yaml: --home and DAEMON_HOME');
  });

  test("the image's CMD is that command too", () => {
    assert.deepEqual(imageDefaults().cmd, containerDocArgs(), 'Dockerfile CMD and docs/container.md');
  });

  test('the check reads --home in both spellings and notices its absence', () => {
    assert.equal(homeFlag(['run', 'start', '--home', '/h']), '/h');
    assert.equal(homeFlag(['run', 'start', '--home=/h']), '/h');
    assert.equal(homeFlag(['run', 'start', '--x-crisis-skip-assert-invariants']), undefined);
  });
});
