import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parseGoUint64, positionalUint64 } from '../../src/cli/positional-uint.js';

test("Go's strconv.ParseUint(s, 0, 64): base prefixes, underscores, range", () => {
  assert.equal(parseGoUint64('42'), 42n);
  assert.equal(parseGoUint64('0'), 0n);
  assert.equal(parseGoUint64('0x1F'), 31n);
  assert.equal(parseGoUint64('0o17'), 15n);
  assert.equal(parseGoUint64('017'), 15n);
  assert.equal(parseGoUint64('0b101'), 5n);
  assert.equal(parseGoUint64('1_000'), 1000n);
  assert.equal(parseGoUint64('18446744073709551615'), 18446744073709551615n);
  for (const bad of ['', 'abc', '-1', '+1', '08', '0x', '1_', '_1', '1__0', ' 1', '1.0']) {
    assert.throws(() => parseGoUint64(bad), { message: `strconv.ParseUint: parsing ${JSON.stringify(bad)}: invalid syntax` }, bad);
  }
  assert.throws(() => parseGoUint64('18446744073709551616'), { message: 'strconv.ParseUint: parsing "18446744073709551616": value out of range' });
});

test('a bad positional is reported as pflag reports the flag named by its index', () => {
  assert.throws(() => positionalUint64(['abc'], 0), {
    code: 'SIM_BAD_ARGUMENT',
    message: 'invalid argument "abc" for "--0" flag: strconv.ParseUint: parsing "abc": invalid syntax',
  });
});
