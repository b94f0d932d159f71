import { expect } from 'chai'
import { FirstSightings, MemorySightings, SECOND_LOOK_MS, SecondLook } from '../../common/second-look'

describe('second look', function () {
    let now = 0
    const look = () => new SecondLook(new MemorySightings(() => now))

    beforeEach(function () {
        now = 1_000_000
    })

    it('agrees only with a verdict given SECOND_LOOK_MS earlier too, and then starts over', async function () {
        const second = look()
        expect(await second.agrees('gone')).to.equal(false)
        now += SECOND_LOOK_MS - 1
        expect(await second.agrees('gone')).to.equal(false)
        now += 1
        expect(await second.agrees('gone')).to.equal(true)
        // Acted on: the next verdict needs two looks of its own.
        expect(await second.agrees('gone')).to.equal(false)
    })

    it('starts over when another verdict came in between, and keeps keys apart', async function () {
        const second = look()
        expect(await second.agrees('a')).to.equal(false)
        expect(await second.agrees('b')).to.equal(false)
        now += SECOND_LOOK_MS
        await second.forget('a')
        expect(await second.agrees('a')).to.equal(false)
        expect(await second.agrees('b')).to.equal(true)
        now += SECOND_LOOK_MS
        expect(await second.agrees('a')).to.equal(true)
    })

    it('tells the sightings when a verdict stood, and only then', async function () {
        const calls: string[] = []
        const ages = [0, 5, SECOND_LOOK_MS]
        const sightings: FirstSightings<string> = {
            sight: async (key) => {
                calls.push(`sight ${key}`)
                return ages.shift()!
            },
            forget: async (key) => void calls.push(`forget ${key}`),
            stood: async (key) => void calls.push(`stood ${key}`),
        }
        const second = new SecondLook(sightings)
        const answers = [await second.agrees('tx'), await second.agrees('tx'), await second.agrees('tx')]
        expect(answers).to.deep.equal([false, false, true])
        expect(calls).to.deep.equal(['sight tx', 'sight tx', 'sight tx', 'stood tx'])
    })
})
