import { expect } from 'chai'
import { BoundedMap } from '../../common/bounded-map'

describe('BoundedMap', function () {
    it('keeps at most its capacity, forgetting the oldest insertion first', function () {
        const map = new BoundedMap<string, number>(2)
        map.set('a', 1).set('b', 2)
        map.get('a') // a read does not refresh: the order is insertion order
        map.set('c', 3)
        expect([...map.entries()]).to.deep.equal([['b', 2], ['c', 3]])
        map.set('b', 20) // an update keeps its place and evicts nothing
        expect(map.size).to.equal(2)
        expect(map.get('b')).to.equal(20)
    })
})
