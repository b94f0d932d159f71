import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import { expect } from 'chai'
import { execFile } from 'child_process'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { promisify } from 'util'
import { hexAddress } from '../../bridge/chains/tron/address'
import { int64, TronHttp } from '../../bridge/chains/tron/client'
import { parseEnv, SharedEnvSchema } from '../../common/config'
import { createLogger } from '../../common/logger'
import { waitFor } from '../../common/processes'
import { DevnetEnv, DevnetSettingsSchema } from '../../devnet/config'
import { startTronAndSolana } from '../../devnet/tron-and-solana'
import { startSolanaDevnet } from '../../devnet/solana'
import { SOLANA_DEV_LAMPORTS, solanaDevKey } from '../../devnet/solana/keys'
import { sendSolana } from '../../devnet/solana/send'
import { startTronDevnet } from '../../devnet/tron'
import { TRON_DEV_TRX_SUN, TRON_DEV_USDT, tronDevKey } from '../../devnet/tron/keys'
import { sendTron } from '../../devnet/tron/send'
import { freePort } from '../support/ports'

const CLI = path.resolve(__dirname, '../../devnet/cli.js')
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const log = createLogger('test').child({}, { level: 'warn' })

/** Waits until a Solana transaction is confirmed or finalized (a fresh cluster's first slot is finalized at once). */
async function solanaConfirmed(connection: () => Connection, signature: string): Promise<void> {
    await waitFor(`SOLANA ${signature} confirmed`, async () => ['confirmed', 'finalized'].includes((await connection().getSignatureStatus(signature)).value?.confirmationStatus ?? ''), 30_000, 100)
}

async function tronBalances(url: string, address: string): Promise<{ trx: bigint; usdt: bigint }> {
    const http = new TronHttp(url)
    return {
        trx: int64((await http.account(address))?.balance),
        usdt: await http.callConstant(USDT, address, 'balanceOf(address)', hexAddress(address).slice(2).padStart(64, '0')),
    }
}

/** The head's number; the first call after a restart may meet a connection the old server closed, so it retries. */
async function tronHeight(url: string): Promise<bigint> {
    return int64((await waitFor('the TRON head', () => new TronHttp(url).nowBlock(), 10_000, 100)).block_header.raw_data.number)
}

/** Waits for a transaction to be in a block; returns its block number. */
async function tronMined(url: string, txID: string): Promise<bigint> {
    const info = await waitFor(`TRON ${txID} in a block`, () => new TronHttp(url).transactionInfo(txID), 30_000, 200)
    return BigInt(info.blockNumber!)
}

/** The local TRON and SOLANA networks as `npm start` runs them: docs/bridge/README.md#local-chains-npm-start */
describe('local TRON and SOLANA networks (devnet/tron, devnet/solana)', function () {
    this.timeout(120_000)
    let dataDir: string
    let env: DevnetEnv

    beforeEach(async () => {
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tron-solana-'))
        env = parseEnv(SharedEnvSchema.extend(DevnetSettingsSchema.shape), {
            DATA_DIR: dataDir,
            TRON_DEVNET_PORT: String(await freePort()),
            SOLANA_DEVNET_PORT: String(await freePort()),
        })
    })

    afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }))

    it('TRON: development keys hold TRX and USDT from genesis; a send through the API lands, and a restart from DATA_DIR keeps balances and height', async () => {
        const recipient = tronDevKey(1000).address
        let tron = await startTronDevnet(env, log)
        try {
            expect(tron.url).to.equal(`http://127.0.0.1:${env.TRON_DEVNET_PORT}`)
            expect(tron.usdtContract).to.equal(USDT)
            expect(await tronBalances(tron.url, tronDevKey(9).address)).to.deep.equal({ trx: TRON_DEV_TRX_SUN, usdt: TRON_DEV_USDT })

            const trxTx = await sendTron(env, recipient, '12.5')
            const usdtTx = await sendTron(env, recipient, '3.000001', 'USDT')
            expect(trxTx).to.match(/^[0-9a-f]{64}$/)
            await tronMined(tron.url, trxTx)
            await tronMined(tron.url, usdtTx)
            expect(await tronBalances(tron.url, recipient)).to.deep.equal({ trx: 12_500_000n, usdt: 3_000_001n })
            const sender = await tronBalances(tron.url, tronDevKey(0).address)
            expect(sender.usdt).to.equal(TRON_DEV_USDT - 3_000_001n)
            expect(sender.trx < TRON_DEV_TRX_SUN - 12_500_000n, 'the sender paid the amount and the fees').to.equal(true)

            const height = await tronHeight(tron.url)
            await tron.stop()
            expect(fs.existsSync(path.join(dataDir, 'tron', 'state.json'))).to.equal(true)

            tron = await startTronDevnet(env, log)
            expect(await tronHeight(tron.url) >= height, 'height after the restart').to.equal(true)
            expect(await tronBalances(tron.url, recipient)).to.deep.equal({ trx: 12_500_000n, usdt: 3_000_001n })
            expect(await tronBalances(tron.url, tronDevKey(0).address)).to.deep.equal(sender)
            // The chain goes on from the restored head: a new send lands above it.
            expect(await tronMined(tron.url, await sendTron(env, recipient, '1')) > height, 'block of a send after the restart').to.equal(true)
            expect((await tronBalances(tron.url, recipient)).trx).to.equal(13_500_000n)
        } finally {
            await tron.stop()
        }
    })

    it('SOLANA: development keys hold SOL from genesis; a send through JSON-RPC lands, and a restart from DATA_DIR keeps balances and slot', async () => {
        const recipient = Keypair.generate().publicKey
        let solana = await startSolanaDevnet(env, log)
        const connection = () => new Connection(solana.url, 'confirmed')
        try {
            expect(solana.url).to.equal(`http://127.0.0.1:${env.SOLANA_DEVNET_PORT}`)
            expect(BigInt(await connection().getBalance(solanaDevKey(9).publicKey))).to.equal(SOLANA_DEV_LAMPORTS)

            const signature = await sendSolana(env, recipient.toBase58(), '2.5')
            await solanaConfirmed(connection, signature)
            expect(await connection().getBalance(recipient)).to.equal(2_500_000_000)
            const sender = await connection().getBalance(solanaDevKey(0).publicKey)
            expect(sender).to.equal(Number(SOLANA_DEV_LAMPORTS) - 2_500_000_000 - 5000)

            const slot = await connection().getSlot('processed')
            await solana.stop()
            expect(fs.existsSync(path.join(dataDir, 'solana', 'state.json'))).to.equal(true)

            solana = await startSolanaDevnet(env, log)
            // The first call may meet a connection the old server closed: retried.
            expect(await waitFor('the restarted cluster', () => connection().getSlot('processed'), 10_000, 100)).to.be.at.least(slot)
            expect(await connection().getBalance(recipient)).to.equal(2_500_000_000)
            expect(await connection().getBalance(solanaDevKey(0).publicKey)).to.equal(sender)
            expect((await connection().getSignatureStatus(signature)).value?.err).to.equal(null)
            // The cluster goes on: once its slot has moved past the restored one, a new send lands there.
            await waitFor('a slot after the restored one', async () => (await connection().getSlot('processed')) > slot, 10_000, 100)
            const next = await sendSolana(env, recipient.toBase58(), '1')
            await solanaConfirmed(connection, next)
            expect((await connection().getSignatureStatus(next)).value!.slot).to.be.greaterThan(slot)
            expect(await connection().getBalance(recipient)).to.equal(3_500_000_000)
        } finally {
            await solana.stop()
        }
    })

    it('funds the bridge vaults the launcher way (addresses from GET /api/swap/config), and a second funding tops up nothing', async () => {
        const vaults: Record<string, string> = { TRON: tronDevKey(2000).address, SOLANA: Keypair.generate().publicKey.toBase58() }
        const vault = (chain: string) => vaults[chain]
        const networks = await startTronAndSolana(env, log)
        try {
            expect(networks.childEnv).to.deep.equal({
                TRON_API_URL: `http://127.0.0.1:${env.TRON_DEVNET_PORT}`, TRON_USDT_CONTRACT: USDT, SOLANA_RPC_URL: `http://127.0.0.1:${env.SOLANA_DEVNET_PORT}`,
            })
            expect(networks.banner.join('\n')).to.include(networks.childEnv.TRON_API_URL).and.to.include(networks.childEnv.SOLANA_RPC_URL)
            await networks.fund(vault)
            const funded = {
                tron: await tronBalances(networks.childEnv.TRON_API_URL, vaults.TRON),
                sol: await new Connection(networks.childEnv.SOLANA_RPC_URL, 'processed').getBalance(new PublicKey(vaults.SOLANA)),
            }
            expect(funded.tron).to.deep.equal({ trx: 100_000_000_000n, usdt: 1_000_000_000_000n })
            expect(funded.sol).to.equal(1_000_000_000_000)
            await networks.fund(vault)
            expect(await tronBalances(networks.childEnv.TRON_API_URL, vaults.TRON)).to.deep.equal(funded.tron)
            expect(await new Connection(networks.childEnv.SOLANA_RPC_URL, 'processed').getBalance(new PublicKey(vaults.SOLANA))).to.equal(funded.sol)
        } finally {
            await networks.stop()
        }
    })

    it('starts neither network when TRON_API_URL and SOLANA_RPC_URL are set', async () => {
        const networks = await startTronAndSolana({ ...env, TRON_API_URL: 'https://api.trongrid.io', SOLANA_RPC_URL: 'https://api.mainnet-beta.solana.com' }, log)
        await networks.stop()
        expect(networks.childEnv).to.deep.equal({})
        expect(networks.banner).to.deep.equal([])
        expect(fs.readdirSync(dataDir)).to.deep.equal([])
    })

    it('npm run devnet -- send: pays USDT on TRON and SOL on SOLANA from development key 0 and prints the transaction id; a bad call prints the usage', async () => {
        const tron = await startTronDevnet(env, log)
        const solana = await startSolanaDevnet(env, log)
        const run = promisify(execFile)
        const childEnv = {
            ...process.env, DATA_DIR: dataDir, TRON_DEVNET_PORT: String(env.TRON_DEVNET_PORT), SOLANA_DEVNET_PORT: String(env.SOLANA_DEVNET_PORT), TRON_API_URL: '', SOLANA_RPC_URL: '',
        }
        try {
            const recipient = tronDevKey(3000).address
            const { stdout } = await run(process.execPath, [CLI, 'send', 'tron', recipient, '7', 'usdt'], { env: childEnv })
            await tronMined(tron.url, stdout.trim())
            expect((await tronBalances(tron.url, recipient)).usdt).to.equal(7_000_000n)

            const solRecipient = Keypair.generate().publicKey
            const sent = await run(process.execPath, [CLI, 'send', 'SOLANA', solRecipient.toBase58(), '0.25'], { env: childEnv })
            const connection = () => new Connection(solana.url, 'confirmed')
            await solanaConfirmed(connection, sent.stdout.trim())
            expect(await connection().getBalance(solRecipient)).to.equal(250_000_000)

            const refused = await run(process.execPath, [CLI, 'send', 'TRON', recipient, '1', 'BTC'], { env: childEnv }).catch((err) => err)
            expect(refused.code).to.equal(2)
            expect(refused.stderr).to.include('TRON sends TRX or USDT')
            const usage = await run(process.execPath, [CLI, 'send', 'DOGE', recipient, '1'], { env: childEnv }).catch((err) => err)
            expect(usage.code).to.equal(2)
            expect(usage.stderr).to.include('usage: npm run devnet -- send')
            const bad = await run(process.execPath, [CLI, 'send', 'SOLANA', 'not-an-address', '1'], { env: childEnv }).catch((err) => err)
            expect(bad.code).to.equal(1)
            expect(bad.stderr).to.include('not a base58 Solana address')
        } finally {
            await Promise.all([tron.stop(), solana.stop()])
        }
    })
})
