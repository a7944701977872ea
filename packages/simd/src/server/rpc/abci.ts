/**
 * `abci_info` and `abci_query`: the application's answers through CometBFT (rpc/core/abci.go).
 * `abci_info` is ResponseInfo through CometBFT's encoder (zero fields left out); `abci_query` is
 * ResponseQuery through jsonpb (every field, `key: null`, `proofOps: null`).
 */
import { getCommitInfo } from '../../chain/commit.js';
import { ChainError } from '../../util/errors.js';
import { method, type RpcMethod } from './backend.js';
import { appVersion } from './info.js';

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
    const height = String(backend.app.lastHeight);
    const response = { code: 0, log: '', info: '', index: '0', key: null, value: null as string | null, proofOps: null, height, codespace: '' };
    try {
      response.value = Buffer.from(await backend.queries.query(path, data)).toString('base64');
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      Object.assign(response, { code: error.abciCode, codespace: error.codespace, log: error.message });
    }
    return { response };
  }),
};
