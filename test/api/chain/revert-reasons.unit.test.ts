import { expect } from 'chai'
import { encodeErrorResult, Hex, parseAbi } from 'viem'
import { decodeRevertReason } from '../../../api/chain/render/decode'

const CUSTOM = parseAbi(['error Refused(address who, uint256 amount, string why)'])
const OTHER = parseAbi(['error Refused(uint256 code)', 'function f()'])

describe('revert reasons decoded as Blockscout\'s DecodedInput', () => {
    const error = encodeErrorResult({ abi: parseAbi(['error Error(string)']), errorName: 'Error', args: ['no'] })
    const custom = encodeErrorResult({ abi: CUSTOM, errorName: 'Refused', args: ['0x5fbdb2315678afecb367f032d93f642f64180aa3', 5n, 'over'] })

    it('decodes Error(string) and Panic(uint256) without any ABI', () => {
        expect(decodeRevertReason(error)).to.deep.equal({
            method_id: '08c379a0', method_call: 'Error(string reason)', parameters: [{ name: 'reason', type: 'string', value: 'no' }],
        })
        const panic = ('0x4e487b71' + '32'.padStart(64, '0')) as Hex
        expect(decodeRevertReason(panic)?.parameters).to.deep.equal([{ name: 'errorCode', type: 'uint256', value: '50' }])
    })

    it('decodes a custom error with the first ABI that declares it and whose declaration fits the data', () => {
        expect(decodeRevertReason(custom)).to.equal(null)
        expect(decodeRevertReason(custom, [OTHER])).to.equal(null)
        expect(decodeRevertReason(custom, [OTHER, CUSTOM])).to.deep.equal({
            method_id: '6ec168df',
            method_call: 'Refused(address who, uint256 amount, string why)',
            parameters: [
                { name: 'who', type: 'address', value: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
                { name: 'amount', type: 'uint256', value: '5' },
                { name: 'why', type: 'string', value: 'over' },
            ],
        })
    })

    it('leaves data it cannot decode: no selector, a truncated Error, an unknown selector', () => {
        expect(decodeRevertReason('0x')).to.equal(null)
        expect(decodeRevertReason('0x08c379a0')).to.equal(null)
        expect(decodeRevertReason('0xdeadbeef', [CUSTOM])).to.equal(null)
    })
})
