import { expect } from 'chai'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { createPublicClient, erc20Abi, http, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { parseEnv, SharedEnvSchema } from '../../common/config'
import { createLogger } from '../../common/logger'
import { waitFor } from '../../common/processes'
import { Anvil, startAnvil } from '../../devnet/anvil'
import { BitcoinDevnet, startBitcoinDevnet } from '../../devnet/bitcoin'
import { sendBitcoin } from '../../devnet/bitcoin/send'
import { BRIDGE_NETWORKS, fundVault, provisionBridgeChain } from '../../devnet/bridge-chains'
import { DevnetEnv, DevnetSettingsSchema } from '../../devnet/config'
import { startProviderDevnet } from '../../devnet/provider'
import { freePort } from '../support/ports'
import { unpooledRequest } from '../support/unpooled-http'

/** The local swap provider `npm start` runs: an exchange settled for real (BTC in on the local Bitcoin network, USDT out on a local BSC), kept across a restart. */
describe('devnet: the local swap provider', function () {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'provider-devnet-'))
    const log = createLogger('test')
    log.level = 'warn'
    let env: DevnetEnv
    let anvil: Anvil
    let btc: BitcoinDevnet
    let bsc: { rpcUrl: string; chainId: number; usdt: `0x${string}` }

    before(async () => {
        env = parseEnv(SharedEnvSchema.extend(DevnetSettingsSchema.shape), {
            DATA_DIR: dataDir, BITCOIN_DEVNET_PORT: String(await freePort()), PROVIDER_DEVNET_PORT: String(await freePort()),
        })
        const spec = BRIDGE_NETWORKS.find((n) => n.name === 'BSC')!
        anvil = await startAnvil({ port: await freePort(), chainId: spec.chainId })
        const record = await provisionBridgeChain(spec, anvil.url)
        bsc = { rpcUrl: anvil.url, chainId: spec.chainId, usdt: record.tokens.USDT }
        btc = await startBitcoinDevnet(env, log)
    })
    after(async () => {
        await Promise.allSettled([btc?.stop(), anvil?.stop()])
        fs.rmSync(dataDir, { recursive: true, force: true })
    })

    it('takes BTC at an address of its own, pays the estimate in USDT from its treasury, and walks the statuses to finished', async () => {
        let provider = await startProviderDevnet(env, log, { bitcoinEsploraUrl: btc.url, bsc })
        const call = async (method: string, route: string, body?: unknown) => {
            const response = await unpooledRequest(`${provider.url}${route}`, {
                method, headers: { 'x-api-key': provider.apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
            })
            expect(response.status, `${route}: ${response.text}`).to.equal(200)
            return (JSON.parse(response.text) as { result: any }).result
        }
        const payee = privateKeyToAccount(generatePrivateKey()).address
        let id: string
        try {
            await fundVault(bsc.rpcUrl, bsc.chainId, provider.treasuries.BSC as `0x${string}`, { coin: '1', tokens: [{ address: bsc.usdt, decimals: 18, amount: '1000000' }] })
            const estimate = await call('GET', '/estimates?tickerFrom=btc&networkFrom=btc&tickerTo=usdt&networkTo=bsc&amount=0.02&fixed=false')
            expect(estimate.estimatedAmount).to.equal('1791')
            const exchange = await call('POST', '/exchanges', { tickerFrom: 'btc', networkFrom: 'btc', tickerTo: 'usdt', networkTo: 'bsc', amount: '0.02', addressTo: payee, fixed: false })
            id = exchange.id
            expect(exchange).to.include({ status: 'waiting', expectedAmount: '1791' })
            expect(exchange.addressFrom).to.match(/^bcrt1q/)
            const txFrom = await sendBitcoin(btc.url, exchange.addressFrom, '0.02')
            await waitFor('the deposit to be seen', async () => (await call('GET', `/exchanges/${id}`)).status === 'confirming', 30_000, 100)
            expect((await call('GET', `/exchanges/${id}`)).txFrom).to.equal(txFrom)
            btc.ledger.mine(1)
            const finished = await waitFor('the exchange to finish', async () => {
                const seen = await call('GET', `/exchanges/${id}`)
                return seen.status === 'finished' ? seen : undefined
            }, 60_000, 100)
            expect(finished).to.include({ amountTo: '1791' })
            expect(finished.txTo).to.match(/^0x[0-9a-f]{64}$/)
            const client = createPublicClient({ transport: http(bsc.rpcUrl) })
            expect(await client.readContract({ address: bsc.usdt, abi: erc20Abi, functionName: 'balanceOf', args: [payee] })).to.equal(parseUnits('1791', 18))
            const receipt = await client.getTransactionReceipt({ hash: finished.txTo })
            expect(receipt.status).to.equal('success')
        } finally {
            await provider.stop()
        }
        // A restart keeps its key, its exchanges and its next deposit address.
        const before = provider.apiKey
        provider = await startProviderDevnet(env, log, { bitcoinEsploraUrl: btc.url, bsc })
        try {
            expect(provider.apiKey).to.equal(before)
            expect((await call('GET', `/exchanges/${id!}`)).status).to.equal('finished')
            const next = await call('POST', '/exchanges', { tickerFrom: 'usdt', networkFrom: 'bsc', tickerTo: 'btc', networkTo: 'btc', amount: '100', addressTo: btc.ledger.addressOf(btc.ledger.faucetScript), fixed: false })
            expect(next.addressFrom).to.match(/^0x[0-9a-fA-F]{40}$/)
            expect(next.expectedAmount).to.equal('0.001105')
        } finally {
            await provider.stop()
        }
    })
})
