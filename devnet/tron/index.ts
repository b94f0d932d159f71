import { Logger } from '../../common/logger'
import { DevnetEnv } from '../config'
import { InProcessNetwork, startInProcessNetwork } from '../in-process-network'
import { TRON_DEV_TRX_SUN, TRON_DEV_USDT, tronDevKeys } from './keys'
import { BLOCK_MS, TronLedgerState } from './ledger'
import { startTronNode, TronNode } from './server'

/**
 * The local TRON network `npm start` runs on TRON_DEVNET_PORT, kept in DATA_DIR/tron: a fresh one
 * starts from a genesis where the development keys hold TRX and USDT (docs/bridge/README.md#local-chains-npm-start).
 * Blocks come like a producer's slots: one at each slot time, a gap in time (not in height) after
 * a pause. The first comes at once: wallets (tronweb) cannot build on the genesis block, whose
 * number java-tron's JSON leaves out.
 */
export async function startTronDevnet(env: DevnetEnv, log: Logger): Promise<InProcessNetwork<TronNode> & { usdtContract: string }> {
    const genesis = tronDevKeys().map((k) => ({ address: k.address, sun: TRON_DEV_TRX_SUN, usdt: TRON_DEV_USDT }))
    const network = await startInProcessNetwork<TronLedgerState, TronNode>(env, {
        name: 'tron',
        start: (saved) => startTronNode(saved ? { restore: saved } : { genesis }, env.TRON_DEVNET_PORT),
        exportState: (node) => node.ledger.exportState(),
        step: (node) => node.ledger.mine(1, Math.floor(Date.now() / BLOCK_MS) * BLOCK_MS)[0].txids.length > 0,
        intervalMs: BLOCK_MS,
        log,
    })
    log.info({ url: network.url, height: network.node.ledger.head.number }, 'local TRON network started')
    // base58 address of the network's TRC-20 USDT, for TRON_USDT_CONTRACT
    return { ...network, usdtContract: network.node.ledger.usdt }
}
