import { expect } from 'chai'
import { averageBlockTime } from '../../indexer/writer'

const at = (seconds: number) => ({ timestamp: new Date(seconds * 1000) })

describe('indexer: average block time', () => {
    it('starts at the first interval and follows a steady chain exactly', () => {
        expect(averageBlockTime({ average: 0, lastTimestamp: null }, [at(0), at(2), at(4), at(6)])).to.equal(2000)
    })

    it('continues across batches from the last block of the previous one', () => {
        const first = averageBlockTime({ average: 0, lastTimestamp: null }, [at(0), at(2)])
        const second = averageBlockTime({ average: first, lastTimestamp: at(2).timestamp }, [at(4), at(6)])
        expect(second).to.equal(2000)
    })

    it('moves towards a new block time by 2/101 of the difference per block', () => {
        const after = averageBlockTime({ average: 2000, lastTimestamp: at(100).timestamp }, [at(112)])
        expect(after).to.equal(Math.round(2000 + (12_000 - 2000) * 2 / 101))
    })
})
