import { BridgeChainRecord } from '../common/config'
import { Logger } from '../common/logger'
import { BitcoinAndProviderEnv, startBitcoinAndProvider } from './bitcoin-and-provider'
import { LocalNetwork } from './local-network'
import { startTronAndSolana, TronAndSolanaEnv } from './tron-and-solana'

/** `npm start`'s bridge networks that are not anvils: BITCOIN and the swap provider, TRON and SOLANA, each unless its URL is set: docs/bridge/README.md#local-chains-npm-start */

export async function startLocalNetworks(env: BitcoinAndProviderEnv & TronAndSolanaEnv, log: Logger, bridgeChains: Record<string, BridgeChainRecord>): Promise<LocalNetwork> {
    const bitcoinAndProvider = await startBitcoinAndProvider(env, log, bridgeChains)
    const tronAndSolana = await startTronAndSolana(env, log).catch(async (err) => {
        await bitcoinAndProvider.stop()
        throw err
    })
    const parts = [bitcoinAndProvider, tronAndSolana]
    return {
        childEnv: Object.assign({}, ...parts.map((p) => p.childEnv)),
        banner: parts.flatMap((p) => p.banner),
        fund: async (vault) => {
            const failed = (await Promise.allSettled(parts.map((p) => p.fund(vault)))).filter((r): r is PromiseRejectedResult => r.status === 'rejected')
            if (failed.length) throw failed[0].reason
        },
        stop: async () => {
            await Promise.allSettled(parts.map((p) => p.stop()))
        },
    }
}
