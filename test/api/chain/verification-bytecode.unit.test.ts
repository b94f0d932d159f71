import { expect } from 'chai'
import { matchCreation, matchRuntime, metadataStart } from '../../../api/chain/verification/bytecode'

/** A solc-like tail: a CBOR map (0xa2 ...) of `n` bytes, then its length in two bytes. */
function metadata(fill: string, n = 8): string {
    return 'a2' + fill.repeat(n - 1) + n.toString(16).padStart(4, '0')
}

describe('contract verification: matching', function () {
    const body = '6080604052' + '7f' + '00'.repeat(32) + '5050'
    // The immutable is the 32 bytes after the PUSH32 (0x7f) at byte 5.
    const immutables = { '7': [{ start: 6, length: 32 }] }
    const compiled = body + metadata('11')

    it('finds solc\'s metadata by its length bytes, and only a CBOR map', function () {
        expect(metadataStart(compiled)).to.equal(body.length)
        expect(metadataStart(body + '00' + '0001')).to.equal(undefined)
        expect(metadataStart('00')).to.equal(undefined)
    })

    it('matches runtime code fully with the immutables taken from the chain, partially when only the metadata differs', function () {
        const deployed = body.replace('00'.repeat(32), 'ab'.repeat(32))
        expect(matchRuntime(compiled, immutables, deployed + metadata('11'))).to.equal('full')
        expect(matchRuntime(compiled, immutables, deployed + metadata('22'))).to.equal('partial')
        // Without the immutable ranges the value on chain is a difference in the code.
        expect(matchRuntime(compiled, {}, deployed + metadata('11'))).to.equal(undefined)
        expect(matchRuntime(compiled, immutables, deployed.replace('6080', '6081') + metadata('11'))).to.equal(undefined)
        expect(matchRuntime(compiled, immutables, deployed + metadata('22', 9))).to.equal(undefined)
    })

    it('reads the constructor arguments after the creation code, matched fully or partially', function () {
        const args = '00'.repeat(31) + '2a'
        expect(matchCreation(compiled, compiled + args)).to.deep.equal({ match: 'full', constructorArgs: args })
        expect(matchCreation(compiled, body + metadata('33') + args)).to.deep.equal({ match: 'partial', constructorArgs: args })
        expect(matchCreation(compiled, '0x' + compiled)).to.deep.equal({ match: 'full', constructorArgs: '' })
        expect(matchCreation(compiled, body)).to.equal(undefined)
    })
})
