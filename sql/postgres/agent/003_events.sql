-- Change detection (issue 17). Soft Restaurant's tables get no trigger and no change tracking:
-- the agent polls a fingerprint of them and keeps here what it last saw, so that a restart
-- neither loses nor invents a change, and the events the gateway has not yet acknowledged.

-- One row (id 1) once the first poll has taken its baseline.
CREATE TABLE ba_event_state (
  id integer PRIMARY KEY,
  products_fingerprint varchar(64) NOT NULL,
  -- The highest turnos.idturnointerno seen: a shift opened and closed between two polls is found too.
  last_shift_id bigint NOT NULL,
  updated_at timestamp(3) NOT NULL
);

-- Accounts in tempcheques. A shift close reseeds the folio identity, so a folio alone does not
-- name an account: its opening time (tempcheques.fecha, kept as ISO text, '' when null) does too.
CREATE TABLE ba_event_accounts (
  folio bigint NOT NULL,
  opened varchar(40) NOT NULL,
  status varchar(10) NOT NULL,
  idturno bigint,
  fingerprint varchar(64) NOT NULL,
  -- Events so far for this account: with the account it makes each event's id.
  version integer NOT NULL,
  PRIMARY KEY (folio, opened)
);

-- Shifts open when last seen (turnos.idturno).
CREATE TABLE ba_event_shifts (
  idturno bigint PRIMARY KEY
);

CREATE TABLE ba_event_products (
  idproducto varchar(15) NOT NULL,
  idempresa varchar(15) NOT NULL,
  fingerprint varchar(64) NOT NULL,
  version integer NOT NULL,
  PRIMARY KEY (idproducto, idempresa)
);

-- Detected events, oldest first, until the gateway says it has stored them.
CREATE TABLE ba_event_outbox (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id varchar(64) NOT NULL UNIQUE,
  event text NOT NULL
);

-- Written by each write job in its own transaction: the changes the next poll finds on these
-- records came through the API. The poll that reads a mark deletes it.
CREATE TABLE ba_event_origins (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind varchar(10) NOT NULL,
  entity varchar(40) NOT NULL,
  job_id varchar(64) NOT NULL,
  created_at timestamp(3) NOT NULL
);
