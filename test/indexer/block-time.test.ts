import { expect } from 'chai'
import { averageBlockTime } from '../../indexer/writer'

const at = (seconds: number) => ({ timestamp: new Date(seconds * 1000) })

describe('indexer: average block time', () => {
    it('starts at the first interval and follows a steady chain exactly', () => {
        expect(averageBlockTime({ average: 0, lastTimestamp: null, blocksBefore: 0 }, [at(0), at(2), at(4), at(6)])).to.equal(2000)
    })

    it('continues across batches from the last block of the previous one', () => {
        const first = averageBlockTime({ average: 0, lastTimestamp: null, blocksBefore: 0 }, [at(0), at(2)])
        const second = averageBlockTime({ average: first, lastTimestamp: at(2).timestamp, blocksBefore: 2 }, [at(4), at(6)])
        expect(second).to.equal(2000)
    })

    it('a single block so far holds no interval: the next one seeds the average', () => {
        expect(averageBlockTime({ average: 0, lastTimestamp: at(0).timestamp, blocksBefore: 1 }, [at(5)])).to.equal(5000)
    })

    it('an average worn down to 0 by same-second blocks is an average, not a fresh start', () => {
        const sameSecond = Array.from({ length: 1000 }, () => at(10))
        const worn = averageBlockTime({ average: 2000, lastTimestamp: at(10).timestamp, blocksBefore: 10 }, sameSecond)
        expect(worn).to.equal(0)
        // A 12 s interval now moves it by 2/101 of 12 s, not to 12 s.
        expect(averageBlockTime({ average: worn, lastTimestamp: at(10).timestamp, blocksBefore: 1010 }, [at(22)])).to.equal(Math.round(12_000 * 2 / 101))
    })

    it('moves towards a new block time by 2/101 of the difference per block', () => {
        const after = averageBlockTime({ average: 2000, lastTimestamp: at(100).timestamp, blocksBefore: 50 }, [at(112)])
        expect(after).to.equal(Math.round(2000 + (12_000 - 2000) * 2 / 101))
    })
})
