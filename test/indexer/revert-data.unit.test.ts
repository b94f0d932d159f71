import { expect } from 'chai'
import { revertFromFrame } from '../../indexer/revert-data'

describe('revert data from a transaction\'s top-level frame', () => {
    it('keeps the output of a reverted frame, whichever tracer said so', () => {
        expect(revertFromFrame({ error: 'Reverted', output: '0x4e487b710000000000000000000000000000000000000000000000000000000000000012' }))
            .to.deep.equal({ error: 'Reverted', revertData: '0x4e487b710000000000000000000000000000000000000000000000000000000000000012' })
        expect(revertFromFrame({ error: 'execution reverted', output: '0xAB' })).to.deep.equal({ error: 'execution reverted', revertData: '0xAB' })
    })

    it('stores a revert without output (the call tracer leaves it out) as empty bytes', () => {
        expect(revertFromFrame({ error: 'execution reverted', output: null })).to.deep.equal({ error: 'execution reverted', revertData: '0x' })
    })

    it('keeps no revert data for a failure that is not a revert, nor for a success', () => {
        expect(revertFromFrame({ error: 'Out of gas', output: null })).to.deep.equal({ error: 'Out of gas', revertData: null })
        expect(revertFromFrame({ error: 'invalid opcode: INVALID', output: '0x' })).to.deep.equal({ error: 'invalid opcode: INVALID', revertData: null })
        expect(revertFromFrame({ error: null, output: '0x01' })).to.deep.equal({ error: null, revertData: null })
    })
})
