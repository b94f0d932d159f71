import { expect } from 'chai'
import { InsufficientForFeeError, TransferRequest, TxState, UnpayableTransferError } from '../../bridge/chains/adapter'
import { Asset } from '../../bridge/config'
import { EngineContext } from '../../bridge/engine/context'
import { gatherDeposit, GatherOrder } from '../../bridge/engine/gather'
import { advanceRefundTransfer, RefundOrder } from '../../bridge/engine/refund-transfer'
import { Purpose, TxRecord } from '../../bridge/store/transactions'

const asset = (kind: 'coin' | 'token'): Asset => ({
    symbol: kind === 'coin' ? 'ETH' : 'STABLE', name: kind, decimals: 18, kind, priceClass: kind === 'coin' ? 'ETH' : 'USD', minAmount: '0', maxAmount: '1', chain: 'ETHEREUM', family: 'evm',
})

const tx = (purpose: Purpose, status: TxRecord['status'], amount = 10n): TxRecord => ({
    id: `${purpose}-${status}`, chain: 'ETHEREUM', from: '0xfrom', nonce: 1, hash: `0x${purpose}`, raw: '0x', status, error: null,
    swapId: 's1', purpose, attempt: 1, to: '0xto', asset: 'ETH', amount,
})

/** A context whose sender, adapter and second look are scripted; what was sent and marked dead is kept. */
function fakeContext(script: {
    live?: Partial<Record<Purpose, TxRecord>>
    track?: TxState
    send?: (purpose: Purpose, request: TransferRequest) => { kind: 'sent' | 'rejected'; reason?: string; insufficientFunds?: boolean }
    fee?: bigint
    balances?: Record<string, bigint>
    agrees?: boolean
}) {
    const sent: { purpose: Purpose; request: TransferRequest }[] = []
    const tracked: string[] = []
    const dead: string[] = []
    const adapter = {
        chain: 'ETHEREUM',
        deriveAddress: async () => '0xvault',
        transferFee: async () => script.fee ?? 0n,
        balance: async (address: string, a: Asset) => script.balances?.[`${address}:${a.kind}`] ?? 0n,
    }
    const ctx = {
        config: { networks: { ETHEREUM: { finality: { kind: 'confirmations', confirmations: 1 } } } },
        log: { error: () => undefined, warn: () => undefined },
        adapter: () => adapter,
        coin: () => asset('coin'),
        secondLook: { agrees: async () => script.agrees ?? true },
        sender: {
            live: async (_swapId: string, purpose: Purpose) => script.live?.[purpose],
            byId: async (id: string) => ({ ...Object.values(script.live ?? {}).find((t) => t!.id === id)!, status: 'confirmed' }),
            track: async (_a: unknown, t: TxRecord) => {
                tracked.push(t.purpose)
                return script.track ?? { kind: 'pending' }
            },
            markDead: async (id: string) => {
                dead.push(id)
            },
            send: async (_a: unknown, _swapId: string, purpose: Purpose, request: TransferRequest) => {
                sent.push({ purpose, request })
                const r = script.send?.(purpose, request) ?? { kind: 'sent' }
                return { ...r, tx: tx(purpose, r.kind === 'sent' ? 'broadcast' : 'rejected', typeof request.amount === 'bigint' ? request.amount : 0n) }
            },
        },
    }
    return { ctx: ctx as unknown as EngineContext, sent, tracked, dead }
}

const order = (kind: 'coin' | 'token', more: Partial<GatherOrder> = {}): GatherOrder => ({
    swapId: 's1', chain: 'ETHEREUM', asset: asset(kind), depositIndex: 7, depositAddress: '0xdeposit', amount: 10n, txHash: '0xcredited',
    purpose: 'late_gather:1', gasPurpose: 'late_gather_gas:1', emptyKey: 'empty:1', topUps: 'one', followLandedTopUp: false, ...more,
})

describe('gather step: one deposit into the vault, whoever asks', () => {
    it('a coin: swept from the deposit key, only the credited amount and transaction', async () => {
        const { ctx, sent } = fakeContext({})
        const step = await gatherDeposit(ctx, order('coin'))
        expect(step.state).to.equal('waiting')
        expect(sent).to.have.length(1)
        expect(sent[0].purpose).to.equal('late_gather:1')
        expect(sent[0].request).to.deep.include({ from: { kind: 'deposit', index: 7 }, to: '0xvault', amount: 'all', only: { amount: 10n, txHash: '0xcredited' } })
    })

    it('a coin that cannot be swept: unmovable, with the error for the caller to word', async () => {
        for (const error of [new InsufficientForFeeError('fee'), new UnpayableTransferError('dust')]) {
            const { ctx } = fakeContext({ send: () => { throw error } })
            const step = await gatherDeposit(ctx, order('coin'))
            expect(step).to.deep.equal({ state: 'unmovable', error })
        }
    })

    it('a live gather: done once mined (the row read again), failed once reverted', async () => {
        const gather = tx('late_gather:1', 'broadcast')
        const mined = fakeContext({ live: { 'late_gather:1': gather }, track: { kind: 'confirmed', blockNumber: 5n, final: false, confirmations: 1 } })
        const done = await gatherDeposit(mined.ctx, order('coin'))
        expect(done.state).to.equal('done')
        expect(done.state === 'done' && done.tx.status).to.equal('confirmed')
        const reverted = fakeContext({ live: { 'late_gather:1': gather }, track: { kind: 'reverted', blockNumber: 5n, final: false, confirmations: 1 } })
        expect(await gatherDeposit(reverted.ctx, order('coin'))).to.deep.equal({ state: 'failed', reason: 'the gather transaction 0xlate_gather:1 reverted' })
    })

    it('a token at an address without gas: the vault tops it up with twice the fee less what it holds; the node refusing it is gas-refused', async () => {
        const balances = { '0xdeposit:coin': 1n, '0xdeposit:token': 10n }
        const { ctx, sent } = fakeContext({ fee: 3n, balances })
        expect(await gatherDeposit(ctx, order('token'))).to.deep.equal({ state: 'waiting' })
        expect(sent[0].purpose).to.equal('late_gather_gas:1')
        expect(sent[0].request).to.deep.include({ from: { kind: 'vault' }, to: '0xdeposit', amount: 5n })
        const refused = fakeContext({ fee: 3n, balances, send: () => ({ kind: 'rejected', reason: 'no funds', insufficientFunds: true }) })
        expect(await gatherDeposit(refused.ctx, order('token'))).to.deep.equal({ state: 'gas-refused', reason: 'no funds' })
    })

    it('a landed top-up fees rose past: another with topUps several, gas-spent with one', async () => {
        const live = { 'late_gather_gas:1': tx('late_gather_gas:1', 'confirmed', 2n), gather_gas: tx('gather_gas', 'confirmed', 2n) }
        const balances = { '0xdeposit:coin': 1n, '0xdeposit:token': 10n }
        const one = fakeContext({ fee: 3n, balances, live })
        expect(await gatherDeposit(one.ctx, order('token'))).to.deep.equal({ state: 'gas-spent' })
        expect(one.sent).to.have.length(0)
        const several = fakeContext({ fee: 3n, balances, live })
        await gatherDeposit(several.ctx, order('token', { purpose: 'gather', gasPurpose: 'gather_gas', topUps: 'several' }))
        expect(several.sent.map((s) => s.purpose)).to.deep.equal(['gather_gas'])
    })

    it('a token at an address holding the gas: the credited amount moves, never the extra; a top-up still broadcast is followed only when asked', async () => {
        const live = { 'late_gather_gas:1': tx('late_gather_gas:1', 'broadcast', 6n) }
        const balances = { '0xdeposit:coin': 6n, '0xdeposit:token': 25n }
        const unfollowed = fakeContext({ fee: 3n, balances, live })
        await gatherDeposit(unfollowed.ctx, order('token'))
        expect(unfollowed.tracked).to.deep.equal([])
        expect(unfollowed.sent[0].request).to.deep.include({ from: { kind: 'deposit', index: 7 }, to: '0xvault', amount: 10n })
        const followed = fakeContext({ fee: 3n, balances, live })
        await gatherDeposit(followed.ctx, order('token', { followLandedTopUp: true }))
        expect(followed.tracked).to.deep.equal(['late_gather_gas:1'])
    })

    it('an address read empty: waiting until a second look agrees, then failed', async () => {
        expect(await gatherDeposit(fakeContext({ agrees: false }).ctx, order('token'))).to.deep.equal({ state: 'waiting' })
        expect(await gatherDeposit(fakeContext({}).ctx, order('token'))).to.deep.equal({ state: 'failed', reason: 'the deposit address holds nothing to gather' })
    })
})

const refundOrder: RefundOrder = { swapId: 's1', purpose: 'late_refund:1', chain: 'ETHEREUM', asset: asset('coin'), to: '0xrefund', amount: 9n }

describe('refund transfer: from the vault, followed until final', () => {
    it('sends from the vault to the refund address, then waits for finality', async () => {
        const { ctx, sent } = fakeContext({ track: { kind: 'confirmed', blockNumber: 5n, final: false, confirmations: 1 } })
        expect(await advanceRefundTransfer(ctx, refundOrder)).to.deep.equal({ kind: 'waiting' })
        expect(sent[0]).to.deep.include({ purpose: 'late_refund:1' })
        expect(sent[0].request).to.deep.include({ from: { kind: 'vault' }, to: '0xrefund', amount: 9n })
    })

    it('a live refund in a final block: done with it, nothing sent again', async () => {
        const live = tx('late_refund:1', 'broadcast', 9n)
        const { ctx, sent } = fakeContext({ live: { 'late_refund:1': live }, track: { kind: 'confirmed', blockNumber: 5n, final: true, confirmations: 3 } })
        expect(await advanceRefundTransfer(ctx, refundOrder)).to.deep.equal({ kind: 'done', tx: live })
        expect(sent).to.have.length(0)
    })

    it('refused by the node, or unpayable: said so, for the caller to word', async () => {
        const refused = fakeContext({ send: () => ({ kind: 'rejected', reason: 'nonce too low', insufficientFunds: false }) })
        expect(await advanceRefundTransfer(refused.ctx, refundOrder)).to.deep.equal({ kind: 'refused', reason: 'nonce too low', insufficientFunds: false })
        const error = new InsufficientForFeeError('no gas')
        const unpayable = fakeContext({ send: () => { throw error } })
        expect(await advanceRefundTransfer(unpayable.ctx, refundOrder)).to.deep.equal({ kind: 'unpayable', error })
    })

    it('reverted in a final block: marked dead so that the next attempt signs anew; in a block not final yet: waiting', async () => {
        const live = tx('late_refund:1', 'broadcast', 9n)
        const final = fakeContext({ live: { 'late_refund:1': live }, track: { kind: 'reverted', blockNumber: 5n, final: true, confirmations: 3 } })
        expect(await advanceRefundTransfer(final.ctx, refundOrder)).to.deep.equal({ kind: 'reverted', tx: live })
        expect(final.dead).to.deep.equal([live.id])
        const early = fakeContext({ live: { 'late_refund:1': live }, track: { kind: 'reverted', blockNumber: 5n, final: false, confirmations: 0 } })
        expect(await advanceRefundTransfer(early.ctx, refundOrder)).to.deep.equal({ kind: 'waiting' })
        expect(early.dead).to.deep.equal([])
    })
})
