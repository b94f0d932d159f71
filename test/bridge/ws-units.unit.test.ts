import { expect } from 'chai'
import { SwapCursor } from '../../bridge/ws'
import { BridgeEventNotification } from '../../db/channels'

/** A swap subscription tells each event once: the status as of its read, then only newer events. */
describe('bridge socket: a swap subscription cursor', () => {
    const event = (id: number, name: string): BridgeEventNotification => ({
        id: String(id), swap_id: 's', event: name, status: name, tx_hash: null, created_at: '2026-11-26T00:00:00.000Z', addresses: [],
    })
    const names = (frames: (string | undefined)[]) => frames.map((f) => (f === undefined ? undefined : JSON.parse(f).event))

    it('holds events that arrive while the status is read, and sends only those newer than the read', () => {
        const cursor = new SwapCursor()
        // Arrive before the read answers: the creation (already in the status read) and two later steps, out of order.
        expect(cursor.frame(event(1, 'deposit_wallet_created'))).to.equal(undefined)
        expect(cursor.frame(event(3, 'deposit_confirmed'))).to.equal(undefined)
        expect(cursor.frame(event(2, 'source_token_deposited'))).to.equal(undefined)
        expect(names(cursor.settle('1'))).to.deep.equal(['source_token_deposited', 'deposit_confirmed'])
        expect(names(cursor.settle('3'))).to.deep.equal([])
    })

    it('drops a late notification of an event the status already told, and pushes newer ones', () => {
        const cursor = new SwapCursor()
        expect(cursor.settle('2')).to.deep.equal([])
        expect(cursor.frame(event(2, 'source_token_deposited'))).to.equal(undefined)
        expect(names([cursor.frame(event(3, 'deposit_confirmed'))])).to.deep.equal(['deposit_confirmed'])
    })

    it('a swap with no event yet pushes everything', () => {
        const cursor = new SwapCursor()
        cursor.frame(event(7, 'deposit_wallet_created'))
        expect(names(cursor.settle(null))).to.deep.equal(['deposit_wallet_created'])
    })
})
