import { expect } from 'chai'
import { KeyedCounter } from '../../common/keyed-counter'

describe('KeyedCounter', function () {
    it('counts each key up to its cap, apart from every other key', function () {
        const counter = new KeyedCounter(2)
        expect(counter.atCap('a')).to.equal(false)
        counter.take('a')
        counter.take('a')
        expect(counter.atCap('a')).to.equal(true)
        expect(counter.count('a')).to.equal(2)
        expect(counter.atCap('b')).to.equal(false)
        counter.take('b')
        expect(counter.count('b')).to.equal(1)
        counter.release('a')
        expect(counter.atCap('a')).to.equal(false)
        expect(counter.count('a')).to.equal(1)
    })

    it('forgets a key once it holds nothing', function () {
        const counter = new KeyedCounter(1)
        counter.take('a')
        counter.take('b')
        expect(counter.size).to.equal(2)
        counter.release('a')
        counter.release('b')
        expect(counter.size).to.equal(0)
        expect(counter.count('a')).to.equal(0)
    })

    it('refuses a cap below one', function () {
        expect(() => new KeyedCounter(0)).to.throw(/bad per-key cap/)
    })
})
