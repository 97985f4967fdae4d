CREATE TABLE [dbo].[ba_idempotency] (
  [scope] varchar(100) NOT NULL,
  [idem_key] nvarchar(255) NOT NULL,
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
