-- SG2: each SelfConfig request's field-level change ([{op, kind, name}], names only). Additive: rows
-- written before it show no change, as they recorded none.
ALTER TABLE "SelfConfigRequest" ADD COLUMN "changes" JSONB NOT NULL DEFAULT '[]';
