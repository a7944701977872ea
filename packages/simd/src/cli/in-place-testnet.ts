/**
 * `<bin> in-place-testnet <new-chain-id> <new-operator-address> [--trigger-testnet-upgrade <name>]
 * [--skip-confirmation] [start flags]` (Cosmos SDK v0.50.4+, server.InPlaceTestnetCreator): asks for
 * confirmation on stdin as the SDK does, rewrites the home into a testnet run by its own validator key
 * (chain/testnet.ts), then starts the node in the same process with the start flags, as the SDK does:
 * with a trigger, the next block finds the plan due, so this binary halts there (no handler) or runs
 * the handler. Checks (flags, chain id, operator address) come before the question; nothing of the
 * home changes when one fails or the answer is not yes.
 */
import { chainIdProblem, operatorAccountOf, testnetify } from '../chain/testnet.js';
import { loadOrGenValidatorKey } from '../node/node-config.js';
import { SimError } from '../util/errors.js';
import { parseArgs, UsageProblem } from './args.js';
import { type NodeCommandContext, nodeOptionsFrom, startFlags } from './node-commands.js';

export const confirmationPrompt = 'This operation will modify state in your data folder and cannot be undone. Do you want to continue? (y/n)';

export async function inPlaceTestnet(ctx: NodeCommandContext, argv: readonly string[]): Promise<number> {
  const { strings, booleans, lists, positionals } = parseArgs(argv, {
    flags: { ...startFlags, 'trigger-testnet-upgrade': 'string', 'skip-confirmation': 'boolean' },
  });
  if (positionals.length !== 2) {
    throw new UsageProblem(`accepts 2 arg(s), received ${positionals.length}`, `usage: ${ctx.name} in-place-testnet [newChainID] [newOperatorAddress] [flags]`);
  }
  const [newChainId, operatorAddress] = positionals as [string, string];
  const node = await nodeOptionsFrom(ctx, { strings, booleans, lists });
  const chainProblem = chainIdProblem(newChainId);
  if (chainProblem !== undefined) throw new SimError('SIM_TESTNET_BAD_CHAIN_ID', chainProblem, { hint: 'give the testnet a chain id of 1 to 50 characters' });
  operatorAccountOf(operatorAddress);

  if (booleans['skip-confirmation'] !== true) {
    await ctx.io.out(`${confirmationPrompt}\n`);
    const answer = (await ctx.io.readLine()).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') {
      await ctx.io.out('Operation canceled.\n');
      return 0;
    }
  }

  const trigger = strings['trigger-testnet-upgrade'] ?? '';
  const result = await testnetify({
    home: node.home,
    newChainId,
    operatorAddress,
    consensusPubKey: await loadOrGenValidatorKey(node.home),
    triggerUpgrade: trigger,
    storeUpgrades: trigger !== '' && Object.hasOwn(ctx.version.storeUpgrades, trigger) ? ctx.version.storeUpgrades[trigger] : undefined,
    pruning: node.pruning,
    log: node.log,
  });
  node.log.info('in-place testnet: the home now runs a testnet', {
    module: 'server',
    old_chain_id: result.oldChainId,
    chain_id: newChainId,
    operator: operatorAddress,
    validator: result.consensusAddress,
    height: result.height,
    ...(trigger === '' ? {} : { trigger_upgrade: trigger }),
  });
  // Loaded only now, as by `start` (node-commands.ts): a refused command never pays for the node's servers.
  const { runNode } = await import('../node/run-node.js');
  return runNode(node);
}
