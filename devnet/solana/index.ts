import { Logger } from '../../common/logger'
import { DevnetEnv } from '../config'
import { InProcessNetwork, startInProcessNetwork } from '../in-process-network'
import { SOLANA_DEV_LAMPORTS, solanaDevKeys } from './keys'
import { SLOT_MS, SolanaLedgerState } from './ledger'
import { SolanaNode, startSolanaNode } from './server'

/**
 * The local Solana cluster `npm start` runs on SOLANA_DEVNET_PORT, kept in DATA_DIR/solana: a
 * fresh one starts from a genesis where the development keys hold SOL (docs/bridge/README.md#local-chains-npm-start).
 * Its slot is the one the wall clock is at, as on a live cluster: after a pause it is that many
 * slots further. Transactions land between steps (sendTransaction executes at once).
 */
export async function startSolanaDevnet(env: DevnetEnv, log: Logger): Promise<InProcessNetwork<SolanaNode>> {
    const genesis = solanaDevKeys().map((k) => ({ address: k.publicKey.toBase58(), lamports: SOLANA_DEV_LAMPORTS }))
    let landedBefore = -1
    const network = await startInProcessNetwork<SolanaLedgerState, SolanaNode>(env, {
        name: 'solana',
        start: (saved) => startSolanaNode(saved ? { restore: saved } : { genesisTime: Math.floor(Date.now() / 1000), genesis }, env.SOLANA_DEVNET_PORT),
        exportState: (node) => node.ledger.exportState(),
        step: ({ ledger }) => {
            const due = ledger.firstSlot + Math.floor((Date.now() - ledger.genesisTime * 1000) / SLOT_MS)
            if (due > ledger.slot) ledger.advance(due - ledger.slot)
            const landed = landedBefore !== ledger.landed.size
            landedBefore = ledger.landed.size
            return landed
        },
        intervalMs: SLOT_MS,
        log,
    })
    log.info({ url: network.url, slot: network.node.ledger.slot }, 'local Solana cluster started')
    return network
}
