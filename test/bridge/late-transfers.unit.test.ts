import { expect } from 'chai'
import { balanceRises } from '../../bridge/chains/evm/balance-rises'
import { attributeBalance, TransferSeen } from '../../bridge/engine/late-transfers'

const seen = (txHash: string | null, amount: bigint, blockNumber: bigint): TransferSeen => ({ txHash, amount, blockNumber, blockHash: `0xb${blockNumber}` })
const hashes = (a: { transfers: { txHash: string }[] }) => a.transfers.map((t) => t.txHash)

describe('late deposits: the transfers that make up the balance', () => {
    it('two extras after the credited deposit: both, oldest first, nothing unattributed; the credited one and earlier rows\' transfers left out', () => {
        const found = [seen('0xcredited', 50n, 10n), seen('0xearlier', 7n, 11n), seen('0xa', 20n, 12n), seen('0xb', 10n, 14n)]
        const result = attributeBalance(30n, found, new Set(['0xcredited', '0xearlier']))
        expect(hashes(result)).to.deep.equal(['0xa', '0xb'])
        expect(result.unattributed).to.equal(0n)
    })

    it('one transfer that is the whole balance: that one (as before several were listed)', () => {
        const result = attributeBalance(5n, [seen('0xold', 5n, 1n), seen('0xnew', 3n, 9n)], new Set())
        expect(hashes(result)).to.deep.equal(['0xold'])
        expect(result.unattributed).to.equal(0n)
    })

    it('the newest first: what sits at the address is what arrived last', () => {
        // 0xgone was gathered before (its row predates the list): the newest two account for the balance.
        const result = attributeBalance(9n, [seen('0xgone', 4n, 1n), seen('0xc', 4n, 5n), seen('0xd', 5n, 6n)], new Set())
        expect(hashes(result)).to.deep.equal(['0xc', '0xd'])
    })

    it('transfers that do not account for the balance: those found, the rest unattributed', () => {
        const result = attributeBalance(100n, [seen('0xa', 30n, 2n), seen('0xb', 20n, 3n)], new Set())
        expect(hashes(result)).to.deep.equal(['0xa', '0xb'])
        expect(result.unattributed).to.equal(50n)
        const none = attributeBalance(100n, [], new Set())
        expect(none).to.deep.equal({ transfers: [], unattributed: 100n })
    })

    it('a transfer without a hash, a repeat or one larger than what is left is not listed', () => {
        const result = attributeBalance(10n, [seen(null, 4n, 1n), seen('0xa', 6n, 2n), seen('0xa', 6n, 2n), seen('0xbig', 11n, 3n)], new Set())
        expect(hashes(result)).to.deep.equal(['0xa'])
        expect(result.unattributed).to.equal(4n)
    })

    it('at most `limit` transfers, the newest', () => {
        const many = Array.from({ length: 25 }, (_, i) => seen(`0x${i}`, 1n, BigInt(i)))
        const result = attributeBalance(25n, many, new Set(), 20)
        expect(result.transfers).to.have.length(20)
        expect(result.transfers[0].txHash).to.equal('0x5')
        expect(result.unattributed).to.equal(5n)
    })
})

describe('EVM coin: the blocks where a balance rose', () => {
    /**
     * The address's state after each block, from its changes by block: a fall is one of its own
     * transactions (its nonce rises), as for a deposit address.
     */
    const history = (changes: Record<number, bigint>, hasState: (b: bigint) => boolean = () => true) => {
        let reads = 0
        const at = async (block: bigint) => {
            reads++
            if (!hasState(block)) return undefined
            const past = Object.entries(changes).filter(([b]) => BigInt(b) <= block).map(([, v]) => v)
            return { balance: past.reduce((sum, v) => sum + v, 0n), nonce: past.filter((v) => v < 0n).length }
        }
        return { at, reads: () => reads }
    }

    it('each rise, with its amount, oldest first; a fall (a gather) is passed over', async () => {
        const h = history({ 103: 50n, 120: 30n, 130: -50n, 171: 20n, 172: 5n })
        expect(await balanceRises(h.at, 100n, 600n, 20)).to.deep.equal([
            { blockNumber: 103n, amount: 50n }, { blockNumber: 120n, amount: 30n }, { blockNumber: 171n, amount: 20n }, { blockNumber: 172n, amount: 5n },
        ])
        // Bounded: a few reads per change, nothing like one per block.
        expect(h.reads()).to.be.below(5 * 2 * 10)
    })

    it('a gather and extras of the same amount, which leave the balance where it was, are told apart by the nonce', async () => {
        // The credited 0.5 arrives, is gathered, then 0.3 and 0.2 arrive: block 0 and the head both hold 0.5 only in the middle.
        const h = history({ 12: 5n, 24: -5n, 37: 3n, 38: 2n })
        expect(await balanceRises(h.at, 1n, 38n, 20)).to.deep.equal([
            { blockNumber: 12n, amount: 5n }, { blockNumber: 37n, amount: 3n }, { blockNumber: 38n, amount: 2n },
        ])
    })

    it('the newest `limit` rises', async () => {
        const h = history({ 10: 1n, 20: 1n, 30: 1n, 40: 1n })
        expect((await balanceRises(h.at, 1n, 100n, 2)).map((r) => r.blockNumber)).to.deep.equal([30n, 40n])
    })

    it('a range without change costs two reads', async () => {
        const flat = history({})
        expect(await balanceRises(flat.at, 1n, 1000n, 20)).to.deep.equal([])
        expect(flat.reads()).to.equal(2)
    })

    it('blocks the node holds no state for leave their rises out', async () => {
        const h = history({ 10: 5n, 90: 7n }, (b) => b >= 50n)
        expect(await balanceRises(h.at, 1n, 100n, 20)).to.deep.equal([{ blockNumber: 90n, amount: 7n }])
    })

    it("a rise in the range's first block counts; block 0 (genesis allocations) does not", async () => {
        const h = history({ 0: 9n, 1: 3n })
        expect(await balanceRises(h.at, 0n, 8n, 20)).to.deep.equal([{ blockNumber: 1n, amount: 3n }])
    })
})
