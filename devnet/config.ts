import { z } from 'zod'
import { boolFlag, port, SharedEnv } from '../common/config'

/** The devnet's variables (docs/devnet.md); `npm start` runs the devnet, so the launcher reads them. */
export const DevnetSettingsSchema = z.object({
    DEVNET_BLOCK_TIME: z.coerce.number().int().min(0).max(60).default(2)
        .describe('seconds between devnet blocks once the demo history is seeded (0: a block per transaction)'),
    DEVNET_SEED: z.string().min(1).default('evm-chain-services')
        .describe('seed of the demo history; the same seed gives the same history'),
    DEVNET_RPC_LIMITS: boolFlag.default(true)
        .describe('serve the devnet\'s JSON-RPC on `DEVNET_PORT` through a proxy that refuses, as public nodes do, an `eth_getLogs` wider than `DEVNET_GETLOGS_MAX_BLOCKS` and a batch larger than `DEVNET_RPC_BATCH_MAX` ([devnet](devnet.md#limits-of-a-public-node)); `false`: anvil itself on `DEVNET_PORT`, without limits'),
    DEVNET_GETLOGS_MAX_BLOCKS: z.coerce.number().int().min(1).default(10_000)
        .describe('widest block range, both ends included, of one `eth_getLogs` on the devnet\'s RPC (QuickNode\'s limit and answer: HTTP 413, code -32614)'),
    DEVNET_RPC_BATCH_MAX: z.coerce.number().int().min(1).default(100)
        .describe('most calls in one JSON-RPC batch on the devnet\'s RPC (Erigon\'s default `--rpc.batch.limit` and answer: code -32000)'),
    DEVNET_METADATA_PORT: port.default(8553)
        .describe('port of the devnet\'s NFT metadata server on 127.0.0.1 (ERC-721 and ERC-1155 JSON and images for the zoo\'s NFTs, [devnet](devnet.md#nft-metadata-server)), started and stopped with the devnet; the NFTs\' token URIs name it, so keep it once the zoo is seeded'),
    BSC_DEVNET_PORT: port.default(8546)
        .describe('port of the local BSC that `npm start` runs when `BSC_RPC_URL` is not set'),
    ETHEREUM_DEVNET_PORT: port.default(8547)
        .describe('port of the local ETHEREUM, as for BSC'),
    POLYGON_DEVNET_PORT: port.default(8548)
        .describe('port of the local POLYGON, as for BSC'),
    BITCOIN_DEVNET_PORT: port.default(8549)
        .describe('port of the local Bitcoin network\'s Esplora API, which `npm start` runs when neither `BITCOIN_ESPLORA_URL` nor `BITCOIN_RPC_URL` is set'),
    PROVIDER_DEVNET_PORT: port.default(8552)
        .describe('port of the local swap provider (the SimpleSwap v3 API, settling on the local networks), which `npm start` runs when `SIMPLESWAP_API_URL` is not set'),
    TRON_DEVNET_PORT: port.default(8090)
        .describe('port of the local TRON network (java-tron full-node HTTP and TronGrid v1 routes) that `npm start` runs when `TRON_API_URL` is not set'),
    SOLANA_DEVNET_PORT: port.default(8899)
        .describe('port of the local Solana cluster (JSON-RPC) that `npm start` runs when `SOLANA_RPC_URL` is not set'),
})

export type DevnetEnv = SharedEnv & z.infer<typeof DevnetSettingsSchema>
