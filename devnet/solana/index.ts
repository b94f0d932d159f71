import * as path from 'path'
import { dataDir } from '../../common/config'
import { Logger } from '../../common/logger'
import { DevnetEnv } from '../config'
import { readStateFile, writeStateFile } from '../state-file'
import { SOLANA_DEV_LAMPORTS, solanaDevKeys } from './keys'
import { SLOT_MS, SolanaLedgerState } from './ledger'
import { SolanaNode, startSolanaNode } from './server'

/** The local Solana cluster `npm start` runs: slots every 400 ms on the wall clock, kept in DATA_DIR/solana (docs/bridge/README.md#local-chains-npm-start). */

/** Slots without transactions are saved at most this often; new transactions are saved at the next slot. */
const SAVE_EVERY_MS = 30_000

export interface SolanaDevnet {
    url: string
    node: SolanaNode
    stop(): Promise<void>
}

export function solanaStateFile(env: DevnetEnv): string {
    return path.join(dataDir(env), 'solana', 'cluster.json')
}

/** Starts the cluster on SOLANA_DEVNET_PORT, continuing the saved one if there is one, else from a genesis where the development keys hold SOL. */
export async function startSolanaDevnet(env: DevnetEnv, log: Logger): Promise<SolanaDevnet> {
    const file = solanaStateFile(env)
    const saved = readStateFile<SolanaLedgerState>(file)
    const node = await startSolanaNode(saved
        ? { restore: saved }
        : { genesisTime: Math.floor(Date.now() / 1000), genesis: solanaDevKeys().map((k) => ({ address: k.publicKey.toBase58(), lamports: SOLANA_DEV_LAMPORTS })) },
    env.SOLANA_DEVNET_PORT)
    const ledger = node.ledger
    let savedAt = Date.now()
    let savedTransactions = ledger.landed.size
    const save = () => {
        writeStateFile(file, ledger.exportState())
        savedAt = Date.now()
        savedTransactions = ledger.landed.size
    }
    if (!saved) save()
    // The slot the wall clock is at, as on a live cluster: after a pause the cluster is that many slots further.
    const tick = () => {
        try {
            const due = ledger.firstSlot + Math.floor((Date.now() - ledger.genesisTime * 1000) / SLOT_MS)
            if (due > ledger.slot) ledger.advance(due - ledger.slot)
            if (ledger.landed.size !== savedTransactions || Date.now() - savedAt >= SAVE_EVERY_MS) save()
        } catch (err) {
            log.error({ err }, 'local Solana: could not advance or save the cluster')
        }
    }
    tick()
    const timer = setInterval(tick, SLOT_MS)
    log.info({ url: node.url, slot: ledger.slot, restored: !!saved }, 'local Solana cluster started')
    return {
        url: node.url,
        node,
        stop: async () => {
            clearInterval(timer)
            await node.close()
            save()
        },
    }
}
