import { Address } from 'viem'
import { BridgeChainRecord } from '../common/config'
import { Logger } from '../common/logger'
import { BitcoinDevnet, startBitcoinDevnet } from './bitcoin'
import { fundVault } from './bridge-chains'
import { LocalNetwork } from './local-network'
import { DevnetEnv } from './config'
import { ProviderDevnet, startProviderDevnet } from './provider'

/** `npm start`'s local Bitcoin network and swap provider, and what the bridge is told of them: docs/bridge/README.md#local-chains-npm-start */

/** What the launcher keeps topped up: the bridge's BTC vault (its float for network fees) and the provider's treasuries. */
const BITCOIN_VAULT_SATS = 10_000_000n
const PROVIDER_BTC_SATS = 1_000_000_000n
const PROVIDER_USDT = '10000000'

export type BitcoinAndProviderEnv = DevnetEnv & { BITCOIN_ESPLORA_URL?: string; BITCOIN_RPC_URL?: string; SIMPLESWAP_API_URL?: string }

/** Starts the Bitcoin network unless BITCOIN_ESPLORA_URL or BITCOIN_RPC_URL is set, the provider unless SIMPLESWAP_API_URL is. */
export async function startBitcoinAndProvider(env: BitcoinAndProviderEnv, log: Logger, bridgeChains: Record<string, BridgeChainRecord>): Promise<LocalNetwork> {
    let bitcoin: BitcoinDevnet | undefined
    let provider: ProviderDevnet | undefined
    const childEnv: Record<string, string> = {}
    const banner: string[] = []
    try {
        if (!env.BITCOIN_ESPLORA_URL && !env.BITCOIN_RPC_URL) {
            bitcoin = await startBitcoinDevnet(env, log)
            Object.assign(childEnv, { BITCOIN_NETWORK: 'regtest', BITCOIN_ESPLORA_URL: bitcoin.url })
            banner.push(`${'BITCOIN (local) Esplora'.padEnd(25)}${bitcoin.url}  (regtest)`)
            banner.push(`${'Pay a deposit address'.padEnd(25)}npm run devnet -- send BITCOIN <address> 0.01  (or BSC <address> 100 USDT, …)`)
        }
        if (!env.SIMPLESWAP_API_URL) {
            const bsc = bridgeChains.BSC
            provider = await startProviderDevnet(env, log, {
                bitcoinEsploraUrl: bitcoin?.url,
                bsc: bsc?.tokens.USDT ? { rpcUrl: bsc.rpcUrl, chainId: bsc.chainId, usdt: bsc.tokens.USDT } : undefined,
            })
            Object.assign(childEnv, { SIMPLESWAP_API_URL: provider.url, SIMPLESWAP_API_KEY: provider.apiKey })
            banner.push(`${'Swap provider (local)'.padEnd(25)}${provider.url}  (SimpleSwap v3 API)`)
        }
    } catch (err) {
        await Promise.allSettled([provider?.stop(), bitcoin?.stop()])
        throw err
    }
    return {
        childEnv,
        banner,
        fund: async (vault) => {
            const btcVault = vault('BITCOIN')
            if (bitcoin && btcVault) bitcoin.topUp(btcVault, BITCOIN_VAULT_SATS)
            if (bitcoin && provider?.treasuries.BITCOIN) bitcoin.topUp(provider.treasuries.BITCOIN, PROVIDER_BTC_SATS)
            const bsc = bridgeChains.BSC
            if (bsc && provider?.treasuries.BSC) {
                await fundVault(bsc.rpcUrl, bsc.chainId, provider.treasuries.BSC as Address, { coin: '10', tokens: [{ address: bsc.tokens.USDT, decimals: 18, amount: PROVIDER_USDT }] })
            }
            log.info({ bitcoinVault: btcVault, providerTreasuries: provider?.treasuries }, 'bridge BITCOIN vault and provider treasuries funded')
        },
        stop: async () => {
            await Promise.allSettled([provider?.stop()])
            await bitcoin?.stop()
        },
    }
}
