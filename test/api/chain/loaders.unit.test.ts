import { expect } from 'chai'
import { Db } from '../../../api/chain/db'
import { blockOr404, tokenOr404, transactionOr404 } from '../../../api/chain/loaders'
import { HttpError } from '../../../common/service/http-error'

/** A Db answering every statement with `rows`, remembering the values it was given. */
function fakeDb(rows: object[]) {
    const seen: unknown[][] = []
    const db: Db = { query: async (_text, values) => (seen.push(values ?? []), { rows } as never) }
    return { db, seen }
}

describe('chain API: loaders of the object a path names (unit)', () => {
    const loaders = [
        ['transaction', (db: Db) => transactionOr404(db, '0xabc')],
        ['block by number', (db: Db) => blockOr404(db, { number: 7 })],
        ['block by hash', (db: Db) => blockOr404(db, { hash: '0xdef' })],
        ['token', (db: Db) => tokenOr404(db, '0x01')],
    ] as const

    for (const [what, load] of loaders) {
        it(`${what}: the row when the indexer has it, Blockscout's 404 when not`, async () => {
            const row = { id: 'x' }
            expect(await load(fakeDb([row]).db)).to.equal(row)
            const err = await load(fakeDb([]).db).then(() => undefined, (e: unknown) => e)
            expect(err).to.be.instanceOf(HttpError)
            expect((err as HttpError).status).to.equal(404)
            expect((err as HttpError).message).to.equal('Not found')
        })
    }

    it('reads by the parsed parameter', async () => {
        const { db, seen } = fakeDb([{}])
        await transactionOr404(db, '0xabc')
        await blockOr404(db, { number: 7 })
        await blockOr404(db, { hash: '0xdef' })
        await tokenOr404(db, '0x01')
        expect(seen).to.deep.equal([['0xabc'], [7], ['0xdef'], ['0x01']])
    })
})
