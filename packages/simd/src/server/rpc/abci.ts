/**
 * `abci_info` and `abci_query`: the application's answers through CometBFT (rpc/core/abci.go).
 * `abci_info` is ResponseInfo through CometBFT's encoder (zero fields left out); `abci_query` is
 * ResponseQuery through jsonpb (every field, `key: null`, `proofOps: null`).
 */
import { getCommitInfo } from '../../chain/commit.js';
import { abciQuery } from '../abci-query.js';
import { method, type RpcMethod } from './backend.js';
import { appVersion } from './info.js';
import { invalidParams } from './jsonrpc.js';

export const abciMethods: Record<string, RpcMethod> = {
  abci_info: method([], async (_params, backend) => {
    const { app } = backend;
    const lastAppHash = (await getCommitInfo(app.reader)).appHash;
    const response: Record<string, string> = {
      data: 'SimApp',
      version: app.version.name,
      app_version: String(await appVersion(app)),
      last_block_height: String(app.lastHeight),
      last_block_app_hash: lastAppHash.toString('base64'),
    };
    for (const [key, value] of Object.entries(response)) if (value === '' || value === '0') delete response[key];
    return { response };
  }),

  abci_query: method(['path', 'data', 'height', 'prove'], async (params, backend) => {
    const path = params.string('path') ?? '';
    const data = params.bytes('data', 'hex') ?? Buffer.alloc(0);
    const asked = params.string('height') ?? '';
    if (asked !== '' && !/^-?\d+$/.test(asked)) throw invalidParams(`height must be an integer, got ${JSON.stringify(asked)}`);
    const prove = params.bool('prove');
    // baseapp's Query (abci-query.ts): a refused path or height answers height 0; a failing query, the height it ran at.
    const answer = await abciQuery(backend.queries, { path, data, height: Number(asked || '0'), prove }, backend.app.version.name);
    const bytes = (value: Uint8Array | undefined) => (value === undefined ? null : Buffer.from(value).toString('base64'));
    const { code, log, info, index, key, value, height, codespace } = answer;
    return { response: { code, log, info, index: String(index), key: bytes(key), value: bytes(value), proofOps: null, height: String(height), codespace } };
  }),
};
