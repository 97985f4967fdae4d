-- What each print job asked for and how its printers answered. The seed stores an order's price
-- and payment method "for future receipt templates", not printed on the kitchen ticket; the id
-- is the job's orderRef.
CREATE TABLE [dbo].[ba_print_jobs] (
  [id] bigint IDENTITY(1,1) NOT NULL,
  [kind] varchar(10) NOT NULL,
  [order_folio] nvarchar(40) NULL,
  [is_reprint] bit NOT NULL,
  [price] nvarchar(40) NULL,
  [payment_method] nvarchar(60) NULL,
  [printed_at] datetime NOT NULL,
  [results] nvarchar(max) NOT NULL,
  CONSTRAINT [PK_ba_print_jobs] PRIMARY KEY ([id])
);
GO
CREATE INDEX [ix_ba_print_jobs_printed_at] ON [dbo].[ba_print_jobs] ([printed_at]);
GO
