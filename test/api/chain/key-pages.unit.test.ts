import { expect } from 'chai'
import { KeyPages } from '../../../api/chain/key-pages'
import { RenderedItems } from '../../../api/chain/rendered-items'
import { RenderingChanges } from '../../../api/chain/queries/rendering-changes'

describe('chain API: list key pages (unit)', function () {
    it('keeps a page before a cursor at or below the head until a reorganisation, and any other page for its head only', async function () {
        const head = { number: 10, get: async () => ({ number: head.number }) }
        let replaced = false
        const changes = async (_since: unknown, at: number): Promise<RenderingChanges> => {
            const c = { head: { number: at, hash: `h${at}`, checkedAt: new Date() }, replaced, states: new Map<string, string>() }
            replaced = false
            return c
        }
        const pages = new KeyPages(new RenderedItems(head, 1024, changes), 10)
        const reads: string[] = []
        const read = (name: string) => async () => (reads.push(`${name}@${head.number}`), [name])
        await pages.get('deep', 9, read('deep'))
        await pages.get('first', undefined, read('first'))
        await pages.get('ahead', 11, read('ahead'))
        await pages.get('deep', 9, read('deep'))
        await pages.get('first', undefined, read('first'))
        expect(reads, 'at one head, each page read once').to.deep.equal(['deep@10', 'first@10', 'ahead@10'])
        head.number = 11
        await pages.get('deep', 9, read('deep'))
        await pages.get('first', undefined, read('first'))
        await pages.get('ahead', 11, read('ahead'))
        expect(reads, 'a new head: the settled page kept, the others read again').to.deep.equal(['deep@10', 'first@10', 'ahead@10', 'first@11', 'ahead@11'])
        replaced = true
        head.number = 12
        await pages.get('deep', 9, read('deep'))
        expect(reads.at(-1), 'a reorganisation: the settled page read again').to.equal('deep@12')
    })
})
