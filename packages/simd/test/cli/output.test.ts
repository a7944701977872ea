import assert from 'node:assert/strict';
import { test } from 'node:test';

import { toYaml } from '../../src/cli/output.js';

test('text output is YAML with sorted keys and quoted int64 strings, as Cosmos CLIs print it', () => {
  assert.equal(
    toYaml({ name: 'v2', time: '0001-01-01T00:00:00Z', height: '100', info: '', upgraded_client_state: null }),
    'height: "100"\ninfo: ""\nname: v2\ntime: "0001-01-01T00:00:00Z"\nupgraded_client_state: null\n',
  );
  assert.equal(
    toYaml({
      module_versions: [
        { name: 'auth', version: '5' },
        { name: 'bank', version: '4' },
      ],
    }),
    'module_versions:\n- name: auth\n  version: "5"\n- name: bank\n  version: "4"\n',
  );
  assert.equal(toYaml({ messages: [{ '@type': '/cosmos.x', plan: null }] }), 'messages:\n- "@type": /cosmos.x\n  plan: null\n');
});
