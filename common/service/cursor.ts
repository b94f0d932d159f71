/**
 * An opaque keyset cursor: the key of a page's last row, its fields joined by ':' after an optional
 * tag and base64url-encoded, so that clients hand back next_cursor rather than build one. Decoding
 * accepts only what encode could have produced: anything else is the route's own 400 (`refuse`),
 * never a query with a key the route did not choose.
 */
export class KeysetCursor {
    private readonly pattern: RegExp

    /**
     * `fields`: what each field of the key must match, in order (unanchored, without ':');
     * `tag`: a fixed first field naming what the key is of.
     */
    constructor(fields: RegExp[], private readonly refuse: () => Error, private readonly tag?: string) {
        this.pattern = new RegExp(`^${this.join(fields.map((f) => `(${f.source})`))}$`)
    }

    encode(...key: string[]): string {
        return Buffer.from(this.join(key)).toString('base64url')
    }

    /** The key's fields, in the order encode took them. */
    decode(value: string): string[] {
        // Buffer.from(…, 'base64url') skips characters outside the alphabet; they are refused instead, so one key has one cursor.
        const text = /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url').toString() : ''
        const match = this.pattern.exec(text)
        if (!match) throw this.refuse()
        return match.slice(1)
    }

    private join(fields: string[]): string {
        return (this.tag === undefined ? fields : [this.tag, ...fields]).join(':')
    }
}
