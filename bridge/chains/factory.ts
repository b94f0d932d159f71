import { ConfigError } from '../../common/config'
import { Logger } from '../../common/logger'
import { NetworkConfig } from '../config'
import { KeyManager } from '../keys'
import { ChainAdapter } from './adapter'
import { BitcoinAdapter } from './bitcoin/adapter'
import { EvmAdapter } from './evm/adapter'
import { SolanaAdapter } from './solana/adapter'
import { TronAdapter } from './tron/adapter'

/**
 * The adapter of an enabled network, after checking that its node serves the network configured:
 * a wrong chain (an RPC of another EVM chain id, a testnet Bitcoin backend for mainnet) is a
 * configuration error, since funds would go to another network. An unreachable node is not: the
 * monitor retries every cycle.
 */
export async function createAdapter(network: NetworkConfig, keys: KeyManager, log: Logger): Promise<ChainAdapter> {
    const unreachable = (err: unknown) => {
        log.warn({ err, chain: network.chain }, 'network unreachable at start; will keep trying')
        return undefined
    }
    switch (network.family) {
        case 'evm': {
            const adapter = new EvmAdapter(network, keys, log)
            const chainId = await adapter.client.getChainId().catch(unreachable)
            if (chainId !== undefined && chainId !== network.chainId) {
                throw new ConfigError(`${network.chain}: the RPC at ${network.rpcUrl} reports chain id ${chainId}, expected ${network.chainId}`)
            }
            return adapter
        }
        case 'bitcoin': {
            const adapter = new BitcoinAdapter(network.settings, keys, log)
            const reached = await adapter.backend.tip().then(() => true, unreachable)
            if (reached) await adapter.checkNetwork().catch((err) => { throw new ConfigError(err.message) })
            return adapter
        }
        case 'solana':
            return new SolanaAdapter(network.settings, keys, log)
        case 'tron': {
            const adapter = new TronAdapter(network.settings, keys, log)
            // Its USDT contract must be a 6-decimal token on that node (TRON has no chain id to compare).
            const reached = await adapter.head().then(() => true, unreachable)
            if (reached) await adapter.checkNetwork().catch((err) => { throw new ConfigError(err.message) })
            return adapter
        }
    }
}
