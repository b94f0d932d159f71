import { expect } from 'chai'
import { CoinFrame, effectiveSuccess } from '../../common/coin-movements'

const frame = (transactionHash: string, traceAddress: number[], error: string | null = null): CoinFrame => ({
    transactionHash, traceAddress, type: 'call', from: '0x01', to: '0x02', createdContract: null, value: 1n, error,
})

describe('coin movements: which frames stand', () => {
    it('every frame of a block without failures stands', () => {
        expect(effectiveSuccess([frame('0xa', []), frame('0xa', [0]), frame('0xa', [0, 0]), frame('0xb', [])])).to.deep.equal([true, true, true, true])
    })

    it('a failed frame undoes its whole subtree, not its siblings, nor the same position in another transaction', () => {
        const frames = [
            frame('0xa', []),
            frame('0xa', [0], 'reverted'),
            frame('0xa', [0, 0]),
            frame('0xa', [0, 0, 0]),
            frame('0xa', [1]),
            frame('0xb', []),
            frame('0xb', [0]),
            frame('0xb', [0, 0]),
        ]
        expect(effectiveSuccess(frames)).to.deep.equal([true, false, false, false, true, true, true, true])
    })
})
