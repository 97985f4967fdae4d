-- Keys are compared exactly, as on the gateway: under the POS's case-insensitive collation
-- "abc" and "ABC" would otherwise be one key.
CREATE TABLE [dbo].[ba_idempotency] (
  [scope] varchar(100) COLLATE Latin1_General_100_BIN2 NOT NULL,
  [idem_key] nvarchar(255) COLLATE Latin1_General_100_BIN2 NOT NULL,
  [fingerprint] varchar(64) NOT NULL,
  [op] varchar(60) NOT NULL,
  [result] nvarchar(max) NOT NULL,
  [created_at] datetime NOT NULL,
  [expires_at] datetime NOT NULL,
  CONSTRAINT [PK_ba_idempotency] PRIMARY KEY ([scope], [idem_key])
);
GO
CREATE INDEX [ix_ba_idempotency_expires_at] ON [dbo].[ba_idempotency] ([expires_at]);
GO
