import { expect } from 'chai'
import { hexBytes } from '../../indexer/copy'

describe('indexer: bytes kept as hex for COPY', () => {
    it('keeps whole bytes of hex as the node sent them, either case', () => {
        expect(hexBytes('0x')).to.equal('0x')
        expect(hexBytes('0xa9059cbb00ff')).to.equal('0xa9059cbb00ff')
        expect(hexBytes('0xA9059CBB')).to.equal('0xA9059CBB')
    })

    it('reads malformed hex as a Buffer would (up to the first bad digit or the odd nibble), so COPY never fails on it', () => {
        expect(hexBytes('0xabc')).to.equal('0xab')
        expect(hexBytes('0xab zz cd')).to.equal('0xab')
        expect(hexBytes('abcd')).to.equal('0xcd')
    })
})
