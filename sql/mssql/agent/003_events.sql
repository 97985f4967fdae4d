-- Change detection (issue 17). Soft Restaurant's tables get no trigger and no change tracking:
-- the agent polls a fingerprint of them and keeps here what it last saw, so that a restart
-- neither loses nor invents a change, and the events the gateway has not yet acknowledged.

-- One row (id 1) once the first poll has taken its baseline.
CREATE TABLE [dbo].[ba_event_state] (
  [id] int NOT NULL,
  [products_fingerprint] varchar(64) NOT NULL,
  -- The highest turnos.idturnointerno seen: a shift opened and closed between two polls is found too.
  [last_shift_id] bigint NOT NULL,
  [updated_at] datetime NOT NULL,
  CONSTRAINT [PK_ba_event_state] PRIMARY KEY ([id])
);
GO
-- Accounts in tempcheques. A shift close reseeds the folio identity, so a folio alone does not
-- name an account: its opening time (tempcheques.fecha, kept as ISO text, '' when null) does too.
CREATE TABLE [dbo].[ba_event_accounts] (
  [folio] bigint NOT NULL,
  [opened] varchar(40) COLLATE Latin1_General_100_BIN2 NOT NULL,
  [status] varchar(10) NOT NULL,
  [idturno] bigint NULL,
  [fingerprint] varchar(64) NOT NULL,
  [version] int NOT NULL,
  CONSTRAINT [PK_ba_event_accounts] PRIMARY KEY ([folio], [opened])
);
GO
CREATE TABLE [dbo].[ba_event_shifts] (
  [idturno] bigint NOT NULL,
  CONSTRAINT [PK_ba_event_shifts] PRIMARY KEY ([idturno])
);
GO
-- Product ids compare as Soft Restaurant compares them (the database's collation).
CREATE TABLE [dbo].[ba_event_products] (
  [idproducto] varchar(15) NOT NULL,
  [idempresa] varchar(15) NOT NULL,
  [fingerprint] varchar(64) NOT NULL,
  [version] int NOT NULL,
  CONSTRAINT [PK_ba_event_products] PRIMARY KEY ([idproducto], [idempresa])
);
GO
-- Detected events, oldest first, until the gateway says it has stored them.
CREATE TABLE [dbo].[ba_event_outbox] (
  [seq] bigint IDENTITY(1,1) NOT NULL,
  [event_id] varchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
  [event] nvarchar(max) NOT NULL,
  CONSTRAINT [PK_ba_event_outbox] PRIMARY KEY ([seq]),
  CONSTRAINT [UQ_ba_event_outbox_event_id] UNIQUE ([event_id])
);
GO
-- Written by each write job in its own transaction: the changes the next poll finds on these
-- records came through the API. The poll that reads a mark deletes it.
CREATE TABLE [dbo].[ba_event_origins] (
  [id] bigint IDENTITY(1,1) NOT NULL,
  [kind] varchar(10) NOT NULL,
  [entity] nvarchar(40) NOT NULL,
  [job_id] varchar(64) NOT NULL,
  [created_at] datetime NOT NULL,
  CONSTRAINT [PK_ba_event_origins] PRIMARY KEY ([id])
);
GO
