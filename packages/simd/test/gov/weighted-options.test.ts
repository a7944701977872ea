/** Weighted vote options as the SDK reads and checks them: the CLI text, LegacyDec weights, the v1 and v1beta1 checks. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { legacyDecText, parseLegacyDec } from '../../src/gov/encoding.js';
import { checkWeightedOptions, optionsEventText, weightedOptionsFromText } from '../../src/gov/weighted-options.js';

test('the CLI text: short names, enum names, an option without a weight weighs 1, weights as LegacyDec text', () => {
  assert.deepEqual(weightedOptionsFromText('yes=0.6,No=0.3,abstain=0.05'), [
    { option: 'VOTE_OPTION_YES', weight: '0.600000000000000000' },
    { option: 'VOTE_OPTION_NO', weight: '0.300000000000000000' },
    { option: 'VOTE_OPTION_ABSTAIN', weight: '0.050000000000000000' },
  ]);
  assert.deepEqual(weightedOptionsFromText('NoWithVeto'), [{ option: 'VOTE_OPTION_NO_WITH_VETO', weight: '1.000000000000000000' }]);
  assert.deepEqual(weightedOptionsFromText('VOTE_OPTION_ABSTAIN=1'), [{ option: 'VOTE_OPTION_ABSTAIN', weight: '1.000000000000000000' }]);
  assert.throws(() => weightedOptionsFromText('YES=1'), { message: "'YES' is not a valid vote option, available options: yes/no/no_with_veto/abstain" });
  assert.throws(() => weightedOptionsFromText('yes=0.5,,no=0.5'), { message: "'' is not a valid vote option, available options: yes/no/no_with_veto/abstain" });
  assert.throws(() => weightedOptionsFromText('yes='), { message: 'decimal string cannot be empty' });
});

test("LegacyDec text: math.LegacyNewDecFromStr's values and errors, and LegacyDec.String()", () => {
  assert.equal(parseLegacyDec('0.05'), 50_000_000_000_000_000n);
  assert.equal(parseLegacyDec('-1'), -(10n ** 18n));
  assert.equal(parseLegacyDec('+2'), 2n * 10n ** 18n);
  assert.throws(() => parseLegacyDec('1.'), { message: 'invalid decimal length' });
  assert.throws(() => parseLegacyDec('1.2.3'), { message: 'invalid decimal string' });
  assert.throws(() => parseLegacyDec('-'), { message: 'decimal string cannot be empty' });
  assert.throws(() => parseLegacyDec('1_0'), { message: 'failed to set decimal string with base 10: 1_0000000000000000000' });
  assert.throws(() => parseLegacyDec('9'.repeat(80)), /^Error: decimal '9{80}' out of range; bitLen: got 326, max 316$/);
  assert.equal(legacyDecText(50_000_000_000_000_000n), '0.050000000000000000');
  assert.equal(legacyDecText(-(10n ** 18n)), '-1.000000000000000000');
});

test('the checks: v1 as the msg server words them, v1beta1 as ValidateBasic; the event text', () => {
  const o = (option: string, weight: string) => ({ option, weight });
  assert.deepEqual(checkWeightedOptions([o('VOTE_OPTION_YES', '0.5'), o('VOTE_OPTION_NO', '0.5')], 'v1'), [
    { option: 'VOTE_OPTION_YES', weight: '0.5' },
    { option: 'VOTE_OPTION_NO', weight: '0.5' },
  ]);
  const refused = (options: Array<{ option: string; weight: string }>, style: 'v1' | 'v1beta1', message: string, codespace = 'gov', abciCode = 8) =>
    assert.throws(() => checkWeightedOptions(options, style), { message, codespace, abciCode });
  refused([], 'v1', ': invalid request', 'sdk', 18);
  refused([o('VOTE_OPTION_UNSPECIFIED', '1')], 'v1', 'option:VOTE_OPTION_UNSPECIFIED weight:"1" : invalid vote option');
  refused([o('VOTE_OPTION_YES', 'x')], 'v1', 'option:VOTE_OPTION_YES weight:"x" : invalid vote option');
  refused([o('VOTE_OPTION_YES', '0.5'), o('VOTE_OPTION_YES', '0.5')], 'v1', 'duplicated vote option: invalid vote option');
  refused([o('VOTE_OPTION_YES', '0.5'), o('VOTE_OPTION_YES', '0.5')], 'v1beta1', 'Duplicated vote option: invalid vote option');
  refused([o('VOTE_OPTION_YES', '0.999999999999999999')], 'v1', 'total weight lower than 1.00: invalid vote option');
  refused([o('VOTE_OPTION_YES', '1'), o('VOTE_OPTION_NO', '0.000000000000000001')], 'v1beta1', 'Total weight overflow 1.00: invalid vote option');
  assert.equal(
    optionsEventText([
      { option: 'VOTE_OPTION_YES', weight: '0.5' },
      { option: 'VOTE_OPTION_NO', weight: '0.5' },
    ]),
    'option:VOTE_OPTION_YES weight:"0.5" \noption:VOTE_OPTION_NO weight:"0.5"',
  );
});
