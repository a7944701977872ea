/** The node's --unsafe-skip-upgrades heights, read from its arguments as the node reads them (src/chain/skip-heights.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { skipHeights } from '../../src/chain/index.js';

describe('--unsafe-skip-upgrades', () => {
  test('space-separated values after the flag, the = form with commas, and repeats', () => {
    assert.deepEqual([...skipHeights(['start', '--unsafe-skip-upgrades', '10', '20', '--x', '30'])], [10, 20]);
    assert.deepEqual([...skipHeights(['--unsafe-skip-upgrades=5,6', '-unsafe-skip-upgrades', '7'])], [5, 6, 7]);
    assert.deepEqual([...skipHeights(['start', '--home', '/h'])], []);
    assert.deepEqual([...skipHeights(['--', '--unsafe-skip-upgrades', '1'])], []);
  });
});
