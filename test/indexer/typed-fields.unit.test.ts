import { expect } from 'chai'
import * as fs from 'fs'
import { typedFields } from '../../indexer/typed-fields'

/**
 * typed-fields.ts keeps what Subsquid's mapping drops by replacing the mapping module's exported
 * mapBlock. That works only while the SDK's data source calls it through the module's exports at
 * call time; an upgrade that binds it otherwise fails here before blob fields silently go missing.
 */
describe('indexer: typed transaction fields', () => {
    it('the SDK\'s RPC data source still calls mapBlock through the mapping module\'s exports, for cold and hot blocks', () => {
        const source = fs.readFileSync(require.resolve('@subsquid/evm-processor/lib/ds-rpc/client.js'), 'utf8')
        expect(source.match(/\(0, mapping_1\.mapBlock\)\(/g)).to.have.length(3)
        expect(source).to.not.match(/\bmapBlock\s*=/)
    })

    it('reads a legacy transaction\'s chain id from v (EIP-155), none from 27/28, and keeps a huge authorization nonce exactly', () => {
        expect(typedFields({ type: '0x0', v: '0x17a5' }, undefined).chainId).to.equal(3009n)
        expect(typedFields({ type: '0x0', v: '0x1b' }, undefined)).to.include({ chainId: null, accessList: null })
        const fields = typedFields({
            type: '0x4', chainId: '0xbc1', accessList: [],
            authorizationList: [{ chainId: '0x0', address: '0xAB' + '0'.repeat(38), nonce: '0xffffffffffffffff', yParity: '0x1', r: '0x01', s: '0x02' }],
        }, undefined)
        expect(fields.accessList).to.deep.equal([])
        expect(fields.authorizationList![0]).to.include({ nonce: '18446744073709551615', chainId: '0', yParity: 1, address: '0xab' + '0'.repeat(38) })
    })
})
