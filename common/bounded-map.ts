/**
 * A Map that forgets its oldest entry once it holds more than `capacity`: for facts a process learns
 * from a node (who signed a transaction, when it expires) and keeps only so its memory stays bounded.
 * Insertion order, not use order: a forgotten fact is only read again, never wrong.
 */
export class BoundedMap<K, V> extends Map<K, V> {
    constructor(private readonly capacity: number) {
        super()
    }

    override set(key: K, value: V): this {
        super.set(key, value)
        if (this.size > this.capacity) this.delete(this.keys().next().value!)
        return this
    }
}
