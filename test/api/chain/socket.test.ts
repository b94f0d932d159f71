import { expect } from 'chai'
import { z } from 'zod'
import { PhoenixClient } from '../../support/phoenix-client'
import { Stack } from '../../support/stack'
import { BLOCK_COLUMNS, expectBlock, loadTruth, shape, stack } from './helpers'
import * as S from './shapes'

/**
 * The Phoenix-channels socket the Blockscout frontend uses (/socket/v2/websocket?vsn=2.0.0).
 *
 * What this relies on, read with the search tool:
 * - frontend lib/socket/types.ts: `new_block` → NewBlockSocketResponse {average_block_time: string,
 *   block: Block}; `transaction` on transactions:new_transaction → {transaction: number};
 *   `transaction` on addresses:<hash> → {transactions: Transaction[]}. The frontend joins
 *   `addresses:${hash.toLowerCase()}`.
 * - backend block_scout_web/channels/v2/{block,transaction,address}_channel.ex: joins reply
 *   {:ok, %{}, socket}, i.e. {"status":"ok","response":{}}.
 * - backend notifier.ex: broadcast_block sends "new_block" on "blocks:new_block" with
 *   %{average_block_time: to_string(ms), block: BlockView "block.json"}; validated transactions
 *   give "transaction" on "transactions:new_transaction" with %{transaction: count}, and on
 *   "addresses:<hash>" of each from/to address %{transactions: [rendered list items]}.
 * - Phoenix V2 serializer: broadcasts go out as [null, null, topic, event, payload] (fastlane);
 *   phoenix.js drops a push whose join_ref is set and differs from the channel's, so join_ref must
 *   be null or the channel's.
 * [choice] The block in new_block may be either variant (list or single): both are accepted.
 */

const NewBlockPayload = z.object({
    block: z.union([S.BlockListItem, S.BlockSingle]),
    average_block_time: z.string().regex(/^\d+(\.\d+)?$/, 'milliseconds as a string'),
})

describe('chain API: Phoenix WebSocket /socket/v2/websocket', function () {
    this.timeout(600_000)
    let s: Stack
    let socket: PhoenixClient | undefined

    before(async () => {
        s = await stack()
    })
    afterEach(() => {
        socket?.close()
        socket = undefined
    })

    const url = () => `${s.explorerUrl.replace(/^http/, 'ws')}/socket/v2/websocket?vsn=2.0.0`

    it('joins blocks:new_block, transactions:new_transaction and addresses:<hash> with {"status":"ok","response":{}}', async () => {
        socket = await PhoenixClient.connect(url())
        await socket.join('blocks:new_block')
        await socket.join('transactions:new_transaction')
        await socket.join(`addresses:${s.account(4).address.toLowerCase()}`)
    })

    it('answers a heartbeat on the phoenix topic', async () => {
        socket = await PhoenixClient.connect(url())
        for (let i = 0; i < 2; i++) {
            const ref = socket.nextRef()
            socket.send([null, ref, 'phoenix', 'heartbeat', {}])
            const reply = await socket.next('heartbeat reply', (f) => f[1] === ref, 15_000)
            expect(reply).to.deep.equal([null, ref, 'phoenix', 'phx_reply', { status: 'ok', response: {} }])
        }
    })

    it('leaves a channel with phx_leave → phx_reply ok', async () => {
        socket = await PhoenixClient.connect(url())
        const joinRef = await socket.join('blocks:new_block')
        const ref = socket.nextRef()
        socket.send([joinRef, ref, 'blocks:new_block', 'phx_leave', {}])
        const reply = await socket.next('phx_leave reply', (f) => f[1] === ref, 15_000)
        expect(reply[3]).to.equal('phx_reply')
        expect(reply[4].status).to.equal('ok')
    })

    it('a new transaction on the chain: new_block, transaction count, and the sender\'s address channel', async () => {
        socket = await PhoenixClient.connect(url())
        const sender = s.account(4)
        const topicAddress = `addresses:${sender.address.toLowerCase()}`
        const blocksRef = await socket.join('blocks:new_block')
        const txRef = await socket.join('transactions:new_transaction')
        const addressRef = await socket.join(topicAddress)

        const receipt = await s.send(sender, { to: s.account(5).address, value: 12_345n, gas: 21_000n })
        const hash = receipt.transactionHash

        const block = await socket.next(`new_block for block ${receipt.blockNumber}`, (f) => f[2] === 'blocks:new_block' && f[3] === 'new_block' && f[4]?.block?.hash === receipt.blockHash)
        expect(block[0], 'join_ref of a push: null or the channel\'s').to.be.oneOf([null, blocksRef])
        expect(block[1], 'ref of a push').to.equal(null)
        const payload = shape(NewBlockPayload, block[4], 'new_block payload')
        const row = (await s.db.query(`SELECT ${BLOCK_COLUMNS} FROM block WHERE id = $1`, [receipt.blockHash])).rows[0]
        expectBlock(payload.block as S.BlockListItem, row, await loadTruth(s.db), 'new_block.block')

        const count = await socket.next('transaction on transactions:new_transaction', (f) => f[2] === 'transactions:new_transaction' && f[3] === 'transaction')
        expect(count[0]).to.be.oneOf([null, txRef])
        expect(count[4]).to.have.keys(['transaction'])
        expect(count[4].transaction).to.be.a('number').and.to.be.at.least(1)

        const mine = await socket.next(`transaction on ${topicAddress}`, (f) => f[2] === topicAddress && f[3] === 'transaction'
            && Array.isArray(f[4]?.transactions) && f[4].transactions.some((t: any) => t?.hash === hash))
        expect(mine[0]).to.be.oneOf([null, addressRef])
        const tx = mine[4].transactions.find((t: any) => t.hash === hash)
        const parsed = shape(S.TransactionListItem, tx, 'transaction pushed on the address channel')
        expect(parsed.from.hash).to.equal(sender.address)
        expect(parsed.value).to.equal('12345')
        expect(parsed.block_number).to.equal(Number(receipt.blockNumber))
    })

    it('a channel of another address hears nothing of this transaction', async () => {
        socket = await PhoenixClient.connect(url())
        const other = `addresses:${s.account(7).address.toLowerCase()}`
        await socket.join(other)
        await socket.join('blocks:new_block')
        const receipt = await s.send(s.account(4), { to: s.account(5).address, value: 1n, gas: 21_000n })
        // The block event proves the notification went out; then the other channel must be silent.
        await socket.next('new_block', (f) => f[3] === 'new_block' && f[4]?.block?.hash === receipt.blockHash)
        const stray = await socket.next('anything on the other address', (f) => f[2] === other && f[3] !== 'phx_reply', 2_000).then((f) => f, () => undefined)
        expect(stray, 'a push to an unrelated address channel').to.equal(undefined)
    })

    it('refuses the 101st channel of one socket with a phx_reply error; the channels joined keep working', async () => {
        socket = await PhoenixClient.connect(url())
        for (let i = 1; i <= 100; i++) await socket.join(`addresses:0x${i.toString(16).padStart(40, '0')}`)
        const ref = socket.nextRef()
        socket.send([ref, ref, 'blocks:new_block', 'phx_join', {}])
        const refused = await socket.next('phx_reply to the 101st join', (f) => f[1] === ref, 15_000)
        expect(refused[4]).to.deep.equal({ status: 'error', response: { reason: 'at most 100 channels per socket' } })
        const leave = socket.nextRef()
        socket.send([null, leave, 'addresses:0x0000000000000000000000000000000000000001', 'phx_leave', {}])
        await socket.next('phx_leave reply', (f) => f[1] === leave, 15_000)
        await socket.join('blocks:new_block')
    })

    it('refuses the 21st socket from one client IP with HTTP 429, while another IP connects', async () => {
        // Client IPs of their own (loopback aliases), so no other test's sockets count.
        const mine: PhoenixClient[] = []
        try {
            for (let i = 0; i < 20; i++) mine.push(await PhoenixClient.connect(url(), '127.0.0.3'))
            const refused = PhoenixClient.connect(url(), '127.0.0.3')
            await refused.then(() => expect.fail('the 21st socket from 127.0.0.3 was accepted'), (err) => expect(String(err)).to.include('HTTP 429'))
            socket = await PhoenixClient.connect(url(), '127.0.0.4')
            await socket.join('blocks:new_block')
            await mine[0].join('blocks:new_block')
        } finally {
            for (const c of mine) c.close()
        }
    })
})
