import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_} from "@subsquid/typeorm-store"

/**
 * Who sent transactions when, one row per fact, so distinct senders are counted once when first inserted (docs/stats-api.md).
 */
@Entity_()
export class AccountActivity {
    constructor(props?: Partial<AccountActivity>) {
        Object.assign(this, props)
    }

    /**
     * D:YYYY-MM-DD:sender (a day), W:YYYY-MM-DD:sender (the ISO week starting that Monday) or A:sender (ever)
     */
    @PrimaryColumn_()
    id!: string
}
