IF OBJECT_ID(N'[dbo].[ba_schema_version]', N'U') IS NULL
CREATE TABLE [dbo].[ba_schema_version] (
  [version] int NOT NULL PRIMARY KEY,
  [name] varchar(200) NOT NULL,
  [applied_at] datetime NOT NULL
);
GO
