import * as path from 'path'
import { dataDir } from '../../common/config'
import { Logger } from '../../common/logger'
import { DevnetEnv } from '../config'
import { readStateFile, writeStateFile } from '../state-file'
import { TRON_DEV_TRX_SUN, TRON_DEV_USDT, tronDevKeys } from './keys'
import { BLOCK_MS, TronLedgerState } from './ledger'
import { startTronNode, TronNode } from './server'

/** The local TRON network `npm start` runs: a block every 3 s on the wall clock, kept in DATA_DIR/tron (docs/bridge/README.md#local-chains-npm-start). */

/** Empty blocks are saved at most this often; a block with transactions is saved at once. */
const SAVE_EVERY_MS = 30_000

export interface TronDevnet {
    url: string
    /** base58 address of the network's TRC-20 USDT, for TRON_USDT_CONTRACT */
    usdtContract: string
    node: TronNode
    stop(): Promise<void>
}

export function tronStateFile(env: DevnetEnv): string {
    return path.join(dataDir(env), 'tron', 'chain.json')
}

/** Starts the network on TRON_DEVNET_PORT, continuing the saved chain if there is one, else from a genesis where the development keys hold TRX and USDT. */
export async function startTronDevnet(env: DevnetEnv, log: Logger): Promise<TronDevnet> {
    const file = tronStateFile(env)
    const saved = readStateFile<TronLedgerState>(file)
    const genesis = tronDevKeys().map((k) => ({ address: k.address, sun: TRON_DEV_TRX_SUN, usdt: TRON_DEV_USDT }))
    const node = await startTronNode(saved ? { restore: saved } : { genesis }, env.TRON_DEVNET_PORT)
    const ledger = node.ledger
    let savedAt = Date.now()
    const save = () => {
        writeStateFile(file, ledger.exportState())
        savedAt = Date.now()
    }
    // Like a producer's slots: a block at each slot time, a gap in time (not in height) after a pause.
    const tick = () => {
        try {
            const [block] = ledger.mine(1, Math.floor(Date.now() / BLOCK_MS) * BLOCK_MS)
            if (block.txids.length > 0 || Date.now() - savedAt >= SAVE_EVERY_MS) save()
        } catch (err) {
            log.error({ err }, 'local TRON: could not produce or save a block')
        }
    }
    // At once, too: wallets (tronweb) cannot build on the genesis block, whose number java-tron's JSON leaves out.
    tick()
    const timer = setInterval(tick, BLOCK_MS)
    log.info({ url: node.url, height: ledger.head.number, restored: !!saved }, 'local TRON network started')
    return {
        url: node.url,
        usdtContract: ledger.usdt,
        node,
        stop: async () => {
            clearInterval(timer)
            await node.close()
            save()
        },
    }
}
