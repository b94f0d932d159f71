import * as path from 'path'
import { dataDir } from '../../common/config'
import { Logger } from '../../common/logger'
import { DevnetEnv } from '../config'
import { EsploraServer } from './esplora'
import { bitcoinDevKey, bitcoinMinerKey, FUNDED_DEV_KEYS, p2wpkhScript } from './keys'
import { Ledger } from './ledger'
import { ChainStore } from './store'

/** `npm start`'s Bitcoin network: a regtest chain behind the Esplora API, kept in DATA_DIR/bitcoin/: docs/bridge/README.md#local-chains-npm-start */

/** Seconds between blocks, as a live network (ten minutes on Bitcoin) but fast enough to try swaps. */
export const BITCOIN_BLOCK_SECONDS = 5
/** Coinbases of 50 BTC each paid to every funded development key at genesis. */
const COINBASES_PER_DEV_KEY = 4

export interface BitcoinDevnet {
    /** The Esplora API's base URL (BITCOIN_ESPLORA_URL). */
    url: string
    ledger: Ledger
    /** Tops an address up to `sats` from the miner's coins (a real transaction, mined with the next block); nothing when it holds that much. */
    topUp(address: string, sats: bigint): void
    stop(): Promise<void>
}

export async function startBitcoinDevnet(env: DevnetEnv, log: Logger): Promise<BitcoinDevnet> {
    const store = new ChainStore(path.join(dataDir(env), 'bitcoin'))
    const saved = store.load()
    const devScripts = Array.from({ length: FUNDED_DEV_KEYS }, (_, i) => p2wpkhScript(bitcoinDevKey(i)))
    const ledger = new Ledger('regtest', {
        faucet: bitcoinMinerKey(),
        ...(saved ? { saved } : { premine: { scripts: devScripts, coinbasesEach: COINBASES_PER_DEV_KEY } }),
    })
    if (saved) store.loaded(ledger)
    else store.save(ledger)
    log.info({ height: ledger.tipHeight, continued: saved !== undefined }, 'local Bitcoin network ready')
    const server = new EsploraServer(ledger)
    server.onAccepted = () => store.save(ledger)
    await server.start(env.BITCOIN_DEVNET_PORT)
    const timer = setInterval(() => {
        ledger.mine(1)
        store.save(ledger)
    }, BITCOIN_BLOCK_SECONDS * 1000)
    return {
        url: server.url,
        ledger,
        topUp: (address, sats) => {
            const held = ledger.unspentOf(ledger.scriptOf(address)).reduce((sum, o) => sum + o.value, 0n)
            if (held < sats) ledger.fund(address, sats - held)
            store.save(ledger)
        },
        stop: async () => {
            clearInterval(timer)
            await server.close()
            store.save(ledger)
        },
    }
}
