import { randomBytes } from 'crypto'
import * as path from 'path'
import { Address } from 'viem'
import { dataDir } from '../../common/config'
import { Logger } from '../../common/logger'
import { DevnetEnv } from '../config'
import { readStateFile, writeStateFile } from '../state-file'
import { bitcoinRail, erc20Rail, Rail } from './rails'
import { SimpleSwapServer, StoredExchange } from './server'
import { railKey, Settlement, SettlementState } from './settlement'

/** `npm start`'s swap provider: the SimpleSwap v3 API settling on the local networks, kept in DATA_DIR/provider/: docs/bridge/README.md#local-chains-npm-start */

/**
 * The provider's rates, its fee included: half a percent under the bridge's development price of
 * BTC (DEFAULT_STATIC_PRICES in bridge/prices.ts, 90,000 USD), so its estimates sit where the
 * bridge's own prices would put them.
 */
const BTC_TO_USDT = '89550'
const USDT_TO_BTC = '0.00001105'
/** How often the provider looks at its open exchanges. */
const SETTLE_INTERVAL_MS = 1_000

export interface ProviderNetworks {
    /** The local Bitcoin network's Esplora API. */
    bitcoinEsploraUrl?: string
    /** The local BSC and its USDT (18 decimals). */
    bsc?: { rpcUrl: string; chainId: number; usdt: Address }
}

export interface ProviderDevnet {
    /** Base URL of the API, …/v3 (SIMPLESWAP_API_URL). */
    url: string
    apiKey: string
    /** The addresses the provider pays out from, which the launcher funds: BTC on BITCOIN, USDT on BSC. */
    treasuries: { BITCOIN?: string; BSC?: string }
    stop(): Promise<void>
}

interface SavedProvider {
    apiKey: string
    settlement: SettlementState
    exchanges: StoredExchange[]
}

export async function startProviderDevnet(env: DevnetEnv, log: Logger, networks: ProviderNetworks): Promise<ProviderDevnet> {
    const file = path.join(dataDir(env), 'provider', 'state.json')
    const saved = readStateFile<SavedProvider>(file)
    const server = new SimpleSwapServer(saved?.apiKey ?? `devnet-${randomBytes(16).toString('hex')}`)
    if (saved) server.restore(saved.exchanges)
    const rails: Record<string, Rail> = {}
    if (networks.bitcoinEsploraUrl) rails[railKey('btc', 'btc')] = bitcoinRail(networks.bitcoinEsploraUrl)
    if (networks.bsc) rails[railKey('usdt', 'bsc')] = erc20Rail(networks.bsc.rpcUrl, networks.bsc.chainId, networks.bsc.usdt, 18)
    if (rails['btc:btc'] && rails['usdt:bsc']) {
        server.setPair(['btc', 'btc'], ['usdt', 'bsc'], { rate: BTC_TO_USDT, min: '0.0005', max: '5' })
        server.setPair(['usdt', 'bsc'], ['btc', 'btc'], { rate: USDT_TO_BTC, min: '20', max: null })
    }
    const settlement = new Settlement(server, rails, saved?.settlement ?? { nextDeposit: 1, paying: [] }, log)
    if (settlement.state.paying.length > 0) {
        log.error({ exchanges: settlement.state.paying }, 'the local provider stopped while paying these exchanges out: they stay as they are, check their payouts by hand')
    }
    const save = () => writeStateFile(file, { apiKey: server.apiKey, settlement: settlement.state, exchanges: [...server.exchanges.values()] } satisfies SavedProvider)
    server.onChange = save
    save()
    await server.start(env.PROVIDER_DEVNET_PORT)
    const timer = setInterval(() => void settlement.tick(), SETTLE_INTERVAL_MS)
    return {
        url: server.baseUrl,
        apiKey: server.apiKey,
        treasuries: { BITCOIN: rails['btc:btc']?.treasury, BSC: rails['usdt:bsc']?.treasury },
        stop: async () => {
            clearInterval(timer)
            await settlement.idle()
            await server.stop()
            save()
        },
    }
}
