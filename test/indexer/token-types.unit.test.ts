import { expect } from 'chai'
import {
    decideTokenType, decodeSupports, TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC, transferShape,
} from '../../indexer/token-types'
import { batchTransferId, blockLogIds, logId } from '../../db/row-ids'

describe('token types: log shapes, ERC-165 answers and batch row ids', () => {
    const topic = '0x' + '11'.repeat(32)
    const word = '0x' + '00'.repeat(31) + '05'

    it('names the standard a log has the shape of, and none for other logs', () => {
        expect(transferShape({ topics: [TRANSFER_TOPIC, topic, topic], data: word })).to.equal('ERC-20')
        expect(transferShape({ topics: [TRANSFER_TOPIC, topic, topic, topic], data: '0x' })).to.equal('ERC-721')
        expect(transferShape({ topics: [TRANSFER_SINGLE_TOPIC, topic, topic, topic], data: word + word.slice(2) })).to.equal('ERC-1155')
        expect(transferShape({ topics: [TRANSFER_BATCH_TOPIC, topic, topic, topic], data: '0x' })).to.equal('ERC-1155')
        expect(transferShape({ topics: [TRANSFER_TOPIC, topic, topic, topic], data: word }), 'indexed id and data').to.equal(null)
        expect(transferShape({ topics: [TRANSFER_TOPIC, topic], data: word + word.slice(2) }), 'two topics').to.equal(null)
        expect(transferShape({ topics: [TRANSFER_SINGLE_TOPIC, topic], data: '0x' }), 'unindexed TransferSingle').to.equal(null)
        expect(transferShape({ topics: [topic], data: '0x' })).to.equal(null)
    })

    it('decides by the one interface claimed, and by the shape when both or neither are', () => {
        const none = { erc721: false, erc1155: false }
        expect(decideTokenType('ERC-20', { erc721: true, erc1155: false }), 'an ERC-721 with the id as data').to.equal('ERC-721')
        expect(decideTokenType('ERC-721', { erc721: false, erc1155: true })).to.equal('ERC-1155')
        expect(decideTokenType('ERC-1155', { erc721: true, erc1155: false })).to.equal('ERC-721')
        expect(decideTokenType('ERC-20', none)).to.equal('ERC-20')
        expect(decideTokenType('ERC-721', none), 'before ERC-165').to.equal('ERC-721')
        expect(decideTokenType('ERC-20', { erc721: true, erc1155: true }), 'a contract answering anything').to.equal('ERC-20')
    })

    it('reads supportsInterface as true only for an ABI true', () => {
        expect(decodeSupports('0x' + '00'.repeat(31) + '01')).to.equal(true)
        expect(decodeSupports('0x' + '00'.repeat(32))).to.equal(false)
        expect(decodeSupports(word), 'not a bool').to.equal(false)
        expect(decodeSupports('0x01')).to.equal(false)
        expect(decodeSupports(undefined), 'reverted').to.equal(false)
    })

    it("orders a batch's rows after its log and before the next log, inside the block's id range", () => {
        const ids = [logId(7, 2), batchTransferId(7, 3, 0), batchTransferId(7, 3, 1), batchTransferId(7, 3, 10), logId(7, 4), logId(8, 0)]
        expect([...ids].sort()).to.deep.equal(ids)
        const range = blockLogIds(7)
        for (const id of ids.slice(0, 5)) expect(id >= range.first && id <= range.last, id).to.equal(true)
    })
})
