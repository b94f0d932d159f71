import { expect } from 'chai'
import { minimalCloneImplementation, wordAddress } from '../../indexer/proxies'

describe('proxy detection: reading code and storage words', () => {
    const implementation = '0xbebebebebebebebebebebebebebebebebebebebe'

    it('finds the implementation in an EIP-1167 clone, and nothing in other code', () => {
        const clone = `0x363d3d373d3d3d363d73${implementation.slice(2)}5af43d82803e903d91602b57fd5bf3`
        expect(minimalCloneImplementation(clone)).to.equal(implementation)
        expect(minimalCloneImplementation(clone.toUpperCase().replace('0X', '0x'))).to.equal(implementation)
        expect(minimalCloneImplementation(clone + '00'), 'longer code').to.equal(null)
        expect(minimalCloneImplementation(`0x363d3d373d3d3d363d73${'0'.repeat(40)}5af43d82803e903d91602b57fd5bf3`), 'zero implementation').to.equal(null)
        expect(minimalCloneImplementation('0x6080604052')).to.equal(null)
    })

    it('reads an address from a storage word: zero is none, and slot 0 must hold nothing above the address', () => {
        const word = '0x' + '0'.repeat(24) + implementation.slice(2)
        expect(wordAddress(word)).to.equal(implementation)
        expect(wordAddress(word, true)).to.equal(implementation)
        expect(wordAddress('0x' + '0'.repeat(64))).to.equal(null)
        expect(wordAddress('0x0')).to.equal(null)
        expect(wordAddress(undefined)).to.equal(null)
        const packed = '0x' + '0'.repeat(22) + '01' + implementation.slice(2)
        expect(wordAddress(packed), 'a standard slot, read by its low 20 bytes').to.equal(implementation)
        expect(wordAddress(packed, true), 'slot 0 shared with other state').to.equal(null)
        expect(wordAddress('0xnot hex')).to.equal(null)
    })
})
