import * as bitcoin from 'bitcoinjs-lib'
import { expect } from 'chai'
import { randomBytes } from 'crypto'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { createLogger } from '../../common/logger'
import { startBitcoinDevnet } from '../../devnet/bitcoin'
import { bitcoinDevKey, FUNDED_DEV_KEYS, regtestAddress } from '../../devnet/bitcoin/keys'
import { sendBitcoin } from '../../devnet/bitcoin/send'
import { DevnetEnv, DevnetSettingsSchema } from '../../devnet/config'
import { parseEnv, SharedEnvSchema } from '../../common/config'
import { freePort } from '../support/ports'
import { unpooledRequest } from '../support/unpooled-http'

/** The local Bitcoin network `npm start` runs: funded development keys, sends through its Esplora API, and a chain that survives a restart. */
describe('devnet: the local Bitcoin network', function () {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bitcoin-devnet-'))
    const log = createLogger('test')
    log.level = 'warn'
    let env: DevnetEnv
    const get = async (url: string) => (await unpooledRequest(url)).text
    const balance = async (url: string, address: string) => {
        const utxos = JSON.parse(await get(`${url}/address/${address}/utxo`)) as { value: number }[]
        return utxos.reduce((sum, u) => sum + BigInt(u.value), 0n)
    }

    before(async () => {
        env = parseEnv(SharedEnvSchema.extend(DevnetSettingsSchema.shape), { DATA_DIR: dataDir, BITCOIN_DEVNET_PORT: String(await freePort()) })
    })
    after(() => fs.rmSync(dataDir, { recursive: true, force: true }))

    it('funds the development keys at genesis, pays an address from key 0, and continues the same chain after a restart', async () => {
        const recipient = bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!
        let devnet = await startBitcoinDevnet(env, log)
        let height: number
        let tip: string
        try {
            expect(devnet.url).to.equal(`http://127.0.0.1:${env.BITCOIN_DEVNET_PORT}`)
            for (let i = 0; i < FUNDED_DEV_KEYS; i++) {
                expect(await balance(devnet.url, regtestAddress(bitcoinDevKey(i))), `development key ${i}`).to.equal(20_000_000_000n)
            }
            expect(regtestAddress(bitcoinDevKey(0))).to.match(/^bcrt1q/)
            const txid = await sendBitcoin(devnet.url, recipient, '0.0123')
            expect(txid).to.match(/^[0-9a-f]{64}$/)
            expect(devnet.ledger.mempool.has(txid)).to.equal(true)
            devnet.ledger.mine(1)
            expect(await balance(devnet.url, recipient)).to.equal(1_230_000n)
            // Another payment left in the mempool at the stop is there again after it.
            const pending = await sendBitcoin(devnet.url, recipient, '0.001')
            height = devnet.ledger.tipHeight
            tip = devnet.ledger.tip.hash
            expect(pending).to.match(/^[0-9a-f]{64}$/)
        } finally {
            await devnet.stop()
        }
        devnet = await startBitcoinDevnet(env, log)
        try {
            expect(devnet.ledger.tipHeight).to.equal(height)
            expect(devnet.ledger.tip.hash).to.equal(tip)
            expect(devnet.ledger.mempool.size).to.equal(1)
            expect(await balance(devnet.url, recipient)).to.equal(1_330_000n)
            devnet.ledger.mine(1)
            expect(await get(`${devnet.url}/blocks/tip/height`)).to.equal(String(height + 1))
        } finally {
            await devnet.stop()
        }
        // The block mined before the last stop is kept too.
        devnet = await startBitcoinDevnet(env, log)
        try {
            expect(devnet.ledger.tipHeight).to.equal(height + 1)
            expect(devnet.ledger.mempool.size).to.equal(0)
        } finally {
            await devnet.stop()
        }
    })

    it('refuses an amount with more than 8 decimals and an address of another network', async () => {
        const devnet = await startBitcoinDevnet(env, log)
        try {
            await sendBitcoin(devnet.url, regtestAddress(bitcoinDevKey(1)), '0.000000001').then(() => expect.fail('sent'), (err) => expect(err.message).to.match(/decimal places/))
            const mainnet = bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.bitcoin }).address!
            await sendBitcoin(devnet.url, mainnet, '0.01').then(() => expect.fail('sent'), (err) => expect(err.message).to.match(/not an address of the local Bitcoin network/))
        } finally {
            await devnet.stop()
        }
    })
})
