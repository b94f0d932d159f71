import { expect } from 'chai'
import { Client as PgClient } from 'pg'
import { Address, createWalletClient, Hash, http, parseEther, parseUnits } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis } from '../../../abi'
import { waitFor } from '../../../common/processes'
import { DEV_MNEMONIC } from '../../../devnet/anvil'
import { deployContract, devnetChain } from '../../../devnet/deploy'
import { CHAIN_ID, startTestChain, TestChain } from '../../support/chain'
import { IndexerProcess, startIndexer } from '../../support/indexer'
import { createTestDatabase } from '../../support/postgres'
import { ExplorerStack, startExplorerStack, verifiedAccount } from './harness'
import { waitForOutput } from '../../support/output'

const account = (index: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index })
const CAP = 3

/**
 * Watchlist alerts end to end: a chain, the real indexer (one confirmation makes a block final),
 * the api process mailing a real SMTP server on loopback.
 */
describe('explorer services API: watchlist alerts', function () {
    let chain: TestChain
    let indexer: IndexerProcess
    let stack: ExplorerStack
    let db: PgClient

    before(async function () {
        chain = await startTestChain()
        const databaseUrl = await createTestDatabase('alerts')
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts, env: { INDEXER_FINALITY_CONFIRMATION: '1' } })
        stack = await startExplorerStack({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts, env: { EXPLORER_ALERTS_PER_DAY: String(CAP) } })
        db = new PgClient({ connectionString: databaseUrl })
        await db.connect()
    })

    after(async function () {
        await db?.end()
        await stack?.stop()
        await indexer?.stop()
        await chain?.stop()
    })

    const wallet = (index: number) => createWalletClient({ account: account(index), chain: devnetChain(CHAIN_ID, chain.url), transport: http(chain.url) })
    const fees = { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }

    /** Waits for the transactions, then mines blocks on top so theirs are final at one confirmation; the last of their blocks. */
    async function mined(hashes: Hash[]): Promise<number> {
        const receipts = await Promise.all(hashes.map((hash) => chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })))
        await chain.client.request({ method: 'anvil_mine' as any, params: ['0x2'] as any })
        return Math.max(...receipts.map((r) => Number(r.blockNumber)))
    }
    const sendCoin = (from: number, to: Address, amount: string) => wallet(from).sendTransaction({ to, value: parseEther(amount), ...fees })
    const mintStable = (to: Address, amount: string) => wallet(0).writeContract({ address: chain.contracts.stable, abi: abis.Stable, functionName: 'mint', args: [to, parseUnits(amount, 6)], ...fees })

    /** Until the alerts have been made past `block` and none waits to be mailed: what was mailed is then all there is. */
    async function settled(block: number): Promise<void> {
        await waitFor(`alerts made past block ${block}`, async () => {
            const { rows: [cursor] } = await db.query('SELECT block_number FROM explorer_alert_cursor')
            if (!cursor || cursor.block_number < block) return false
            const { rows: [pending] } = await db.query(`SELECT count(*)::int AS n FROM explorer_alert WHERE state = 'pending'`)
            return pending.n === 0
        }, 60_000, 100)
    }

    const alertsTo = (email: string) => stack.mail.to(email).filter((m) => m.subject.startsWith('Watchlist:'))

    it('mails nothing for history, then exactly one mail for a coin transfer to a watched address, with what moved and an unsubscribe link', async function () {
        const owner = await verifiedAccount(stack)
        const watched = account(5).address
        const before = await mined([await sendCoin(1, watched, '2')])
        const client = stack.client()
        await waitFor('the block indexed', async () => (await db.query(`SELECT last_block FROM chain_counters WHERE id = 'chain'`)).rows[0]?.last_block >= before, 60_000, 50)

        const added = await client.post('/watchlist', { address: watched, name: 'savings', notification_methods: { email: true } }, owner.token)
        expect(added.status, added.text).to.equal(201)
        expect(added.body.notification_methods).to.deep.equal({ email: true })
        expect(added.body.notification_settings).to.deep.equal({
            native: { incoming: true, outgoing: true }, 'ERC-20': { incoming: true, outgoing: true }, 'ERC-721': { incoming: true, outgoing: true },
        })
        // Indexed before the address was added: not mailed, whether the alerts had passed it by then or not.
        await settled(before)
        const hash = await sendCoin(1, watched, '1.5')
        const block = await mined([hash])
        await settled(block)
        const mails = alertsTo(owner.email)
        expect(mails, 'one mail').to.have.length(1)
        expect(mails[0].subject).to.equal(`Watchlist: activity of ${watched.toLowerCase().slice(0, 8)}...${watched.toLowerCase().slice(-6)} in block ${block}`)
        expect(mails[0].text).to.include(`received 1.5 NATIVE from ${account(1).address.toLowerCase()} (transaction ${hash})`)
        expect(mails[0].text).to.include('(savings)')
        expect(mails[0].text).to.match(/\/api\/alerts\/unsubscribe\?token=[0-9a-f-]{36}\.0x[0-9a-f]{40}\.[A-Za-z0-9_-]{43}/)
    })

    it('one mail per address per block: a coin and a token transfer in one block are one mail listing both', async function () {
        const owner = await verifiedAccount(stack)
        const watched = account(6).address
        expect((await stack.client().post('/watchlist', { address: watched, notification_methods: { email: true } }, owner.token)).status).to.equal(201)
        await chain.client.request({ method: 'evm_setAutomine' as any, params: [false] as any })
        let coin: Hash, token: Hash
        try {
            coin = await sendCoin(2, watched, '0.25')
            token = await mintStable(watched, '12.5')
            await chain.client.request({ method: 'evm_mine' as any, params: [] as any })
        } finally {
            await chain.client.request({ method: 'evm_setAutomine' as any, params: [true] as any })
        }
        const block = await mined([coin, token])
        await settled(block)
        const mails = alertsTo(owner.email)
        expect(mails, 'one mail').to.have.length(1)
        expect(mails[0].text).to.include(`received 0.25 NATIVE from ${account(2).address.toLowerCase()} (transaction ${coin})`)
        expect(mails[0].text).to.include(`received 12.5 STABLE from 0x0000000000000000000000000000000000000000 (transaction ${token})`)
    })

    it('holds to each switch: incoming coin off mails nothing, incoming tokens still mail, outgoing coin mails', async function () {
        const owner = await verifiedAccount(stack)
        const watched = account(7).address
        const set = await stack.client().post('/watchlist', {
            address: watched, notification_methods: { email: true }, notification_settings: { native: { incoming: false } },
        }, owner.token)
        expect(set.body.notification_settings.native).to.deep.equal({ incoming: false, outgoing: true })

        await settled(await mined([await sendCoin(3, watched, '1')]))
        expect(alertsTo(owner.email), 'incoming coin is off').to.have.length(0)
        await settled(await mined([await mintStable(watched, '3')]))
        expect(alertsTo(owner.email)).to.have.length(1)
        expect(alertsTo(owner.email)[0].text).to.include('received 3 STABLE')
        await settled(await mined([await sendCoin(7, account(8).address, '0.5')]))
        expect(alertsTo(owner.email)).to.have.length(2)
        expect(alertsTo(owner.email)[1].text).to.include(`sent 0.5 NATIVE to ${account(8).address.toLowerCase()}`)
    })

    it('an ERC-1155 transfer mails behind the ERC-721 switch (Blockscout has no ERC-1155 one): the id and how many', async function () {
        const owner = await verifiedAccount(stack)
        const watched = account(14).address
        const multi = (await deployContract(chain.url, CHAIN_ID, account(0), 'TestErc1155', ['https://meta.example/{id}.json'])).address
        const mint = (id: bigint, amount: bigint) => wallet(0).writeContract({ address: multi, abi: abis.TestErc1155, functionName: 'mint', args: [watched, id, amount], ...fees })
        const set = await stack.client().post('/watchlist', {
            address: watched, notification_methods: { email: true }, notification_settings: { 'ERC-721': { incoming: false } },
        }, owner.token)
        expect(set.status, set.text).to.equal(201)
        await settled(await mined([await mint(1n, 3n)]))
        expect(alertsTo(owner.email), 'incoming NFTs are off').to.have.length(0)

        const on = await stack.client().post('/watchlist', { address: watched, notification_settings: { 'ERC-721': { incoming: true } } }, owner.token)
        expect(on.status, on.text).to.equal(200)
        expect(on.body.notification_settings['ERC-721']).to.deep.equal({ incoming: true, outgoing: true })
        const hash = await mint(7n, 5n)
        await settled(await mined([hash]))
        const mails = alertsTo(owner.email)
        expect(mails).to.have.length(1)
        expect(mails[0].text).to.include(`received 5 of token ${multi.toLowerCase()} #7 from 0x0000000000000000000000000000000000000000 (transaction ${hash})`)
    })

    it(`mails at most ${CAP} alerts per account a day; the rest are recorded as capped`, async function () {
        const owner = await verifiedAccount(stack)
        const watched = account(9).address
        expect((await stack.client().post('/watchlist', { address: watched, notification_methods: { email: true } }, owner.token)).status).to.equal(201)
        let last = 0
        for (let i = 0; i < CAP + 2; i++) last = await mined([await sendCoin(4, watched, '0.01')])
        await settled(last)
        expect(alertsTo(owner.email)).to.have.length(CAP)
        const { rows } = await db.query(
            `SELECT a.state, count(*)::int AS n FROM explorer_alert a JOIN explorer_account acc ON acc.id = a.account_id WHERE acc.email = $1 GROUP BY a.state ORDER BY a.state`,
            [owner.email]
        )
        expect(rows).to.deep.equal([{ state: 'capped', n: 2 }, { state: 'sent', n: CAP }])
    })

    it('the link turns mail off for that address only (GET or the one-click POST); a forged token is a 400', async function () {
        const owner = await verifiedAccount(stack)
        const client = stack.client()
        const [first, second] = [account(10).address, account(11).address]
        for (const address of [first, second]) {
            expect((await client.post('/watchlist', { address, notification_methods: { email: true } }, owner.token)).status).to.equal(201)
        }
        await settled(await mined([await sendCoin(1, first, '0.1')]))
        const link = /(http\S+\/api\/alerts\/unsubscribe\?token=\S+)/.exec(alertsTo(owner.email)[0].text)![1]
        const token = new URL(link).searchParams.get('token')!

        const forged = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA')
        expect((await client.get(`/alerts/unsubscribe?token=${forged}`)).status).to.equal(400)
        const otherAddress = token.replace(first.toLowerCase(), second.toLowerCase())
        expect((await client.get(`/alerts/unsubscribe?token=${otherAddress}`)).status, 'a token names one address').to.equal(400)
        expect((await client.request('POST', '/alerts/unsubscribe')).status).to.equal(400)

        const off = await client.request('POST', `/alerts/unsubscribe?token=${token}`)
        expect(off.status, off.text).to.equal(200)
        expect(off.body).to.deep.equal({ address: first.toLowerCase(), notification_methods: { email: false } })
        expect((await fetch(link)).status, 'the link itself, again').to.equal(200)
        const list = await client.get('/watchlist', owner.token)
        const email = Object.fromEntries(list.body.items.map((i: any) => [i.address, i.notification_methods.email]))
        expect(email).to.deep.equal({ [first.toLowerCase()]: false, [second.toLowerCase()]: true })

        await settled(await mined([await sendCoin(1, first, '0.1'), await sendCoin(2, second, '0.1')]))
        const mails = alertsTo(owner.email)
        expect(mails).to.have.length(2)
        expect(mails[1].text).to.include(second.toLowerCase())
    })
})

/**
 * The indexer's progress table (squid_processor.status) is made by the indexer when it first runs,
 * so an api started first meets a database without it: the alerts wait quietly (one line, not an
 * ERROR every pass) and start once the indexer has run.
 */
describe('explorer services API: watchlist alerts before the indexer has made its tables', function () {
    let chain: TestChain | undefined
    let indexer: IndexerProcess | undefined
    let stack: ExplorerStack | undefined
    let db: PgClient | undefined

    after(async function () {
        await db?.end()
        await stack?.stop()
        await indexer?.stop()
        await chain?.stop()
    })

    it('logs one line while they are missing, no error on the passes meanwhile, and makes alerts once they exist', async function () {
        const databaseUrl = await createTestDatabase('alerts_early')
        stack = await startExplorerStack({ databaseUrl, env: { LOG_LEVEL: 'info' } })
        const api = stack.api
        const waiting = 'watchlist alerts wait for the indexer\'s tables'
        await waitForOutput(api, waiting, 20_000)
        db = new PgClient({ connectionString: databaseUrl })
        await db.connect()
        // Each announcement wakes a pass, as the indexer's commits would.
        for (let i = 0; i < 3; i++) {
            await db.query('NOTIFY chain_head')
            await new Promise((resolve) => setTimeout(resolve, 200))
        }
        chain = await startTestChain()
        indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts, env: { INDEXER_FINALITY_CONFIRMATION: '1' } })
        await waitFor('alerts made once the tables exist', async () => {
            const { rows } = await db!.query(`SELECT to_regclass('explorer_alert_cursor') IS NOT NULL AS made`)
            if (!rows[0].made) return false
            return (await db!.query('SELECT block_number FROM explorer_alert_cursor')).rows.length > 0
        }, 120_000, 200)
        const output = api.output()
        expect(output.split(waiting).length - 1, output).to.equal(1)
        expect(output).to.not.include('watchlist alerts: a pass failed')
    })
})
