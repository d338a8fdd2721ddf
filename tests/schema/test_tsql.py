"""T-SQL (SQL Server) as the sixth dialect: batches, brackets, SSMS options, descriptions, names and
detection."""

from __future__ import annotations

import pytest

from stateforge.errors import SchemaError
from stateforge.schema import parse_ddl
from stateforge.schema.dialects import detect_dialect, resolve_dialect
from stateforge.schema.split import split_statements

SCRIPT = """\
USE [shop]
GO
SET ANSI_NULLS ON
GO
SET QUOTED_IDENTIFIER ON
GO
CREATE TYPE [dbo].[Flag] FROM [bit] NOT NULL
GO
/****** Object:  Table [dbo].[Customer]    Script Date: 3/1/2024 ******/
CREATE TABLE [dbo].[Customer](
	[CustomerID] [int] IDENTITY(1,1) NOT NULL,
	[Name] [nvarchar](100) NOT NULL,
	[Notes] [nvarchar](max) NULL,
	[RowGuid] [uniqueidentifier] ROWGUIDCOL NOT NULL CONSTRAINT [DF_Customer_RowGuid] DEFAULT (newid()),
	[Active] [dbo].[Flag],
	[Score] [float] NULL,
	[Ratio] [real] NULL,
 CONSTRAINT [PK_Customer] PRIMARY KEY CLUSTERED
(
	[CustomerID] ASC
)WITH (PAD_INDEX = OFF, STATISTICS_NORECOMPUTE = OFF, IGNORE_DUP_KEY = OFF) ON [PRIMARY],
 CONSTRAINT [UQ_Customer_Name] UNIQUE NONCLUSTERED ([Name] ASC) WITH (PAD_INDEX = OFF) ON [PRIMARY]
) ON [PRIMARY] TEXTIMAGE_ON [PRIMARY]
GO
IF NOT EXISTS (SELECT * FROM sys.objects WHERE object_id = OBJECT_ID(N'[dbo].[Order]') AND type in (N'U'))
BEGIN
CREATE TABLE [dbo].[Order](
	[OrderID] [int] NOT NULL PRIMARY KEY NONCLUSTERED,
	[CustomerID] [int] NOT NULL,
	[Qty] [int] NOT NULL,
	[Created] [datetime] NOT NULL,
	[Gift] [int] NULL FOREIGN KEY REFERENCES [dbo].[Customer]([CustomerID])
)
END
GO
ALTER TABLE [dbo].[Order]  WITH CHECK ADD  CONSTRAINT [FK_Order_Customer] FOREIGN KEY([CustomerID])
REFERENCES [dbo].[Customer] ([CustomerID])
ON DELETE CASCADE
GO
ALTER TABLE [dbo].[Order] CHECK CONSTRAINT [FK_Order_Customer]
GO
ALTER TABLE [dbo].[Order]  WITH NOCHECK ADD  CONSTRAINT [CK_Order_Qty] CHECK  (([Qty]>(0)))
GO
ALTER TABLE [dbo].[Order] ADD  CONSTRAINT [DF_Order_Created]  DEFAULT (getdate()) FOR [Created]
GO
EXEC sys.sp_addextendedproperty @name=N'MS_Description', @value=N'People who buy' , @level0type=N'SCHEMA',\
@level0name=N'dbo', @level1type=N'TABLE',@level1name=N'Customer'
GO
EXEC sp_addextendedproperty N'MS_Description', N'Shown on invoices; it''s unique', N'SCHEMA', N'dbo', \
N'TABLE', N'Customer', N'COLUMN', N'Name'
GO
CREATE PROCEDURE [dbo].[usp_Clean] AS
BEGIN
  SET NOCOUNT ON;
  DELETE FROM [dbo].[Order] WHERE [Qty] = 0;
END
GO
"""


def test_an_ssms_script_reads_whole() -> None:
    schema = parse_ddl(SCRIPT, source="shop.sql")
    assert schema.dialect == "tsql", "detected from GO, [dbo]. and ON [PRIMARY]"
    customer, order = schema.tables
    assert (customer.name, order.name, customer.line, order.line) == ("Customer", "Order", 10, 27)
    assert [(c.name, c.type, c.nullable) for c in customer.columns] == [
        ("CustomerID", "INTEGER", False),
        ("Name", "VARCHAR(100)", False),
        ("Notes", "VARCHAR", True),
        ("RowGuid", "UUID", False),
        ("Active", "BOOLEAN", False),
        ("Score", "DOUBLE", True),
        ("Ratio", "FLOAT", True),
    ]
    assert customer.column("CustomerID").identity and customer.column("RowGuid").default == "UUID()"
    assert (customer.primary_key, customer.unique) == (("CustomerID",), [("Name",)])
    assert (customer.description, customer.column("Name").description) == (
        "People who buy",
        "Shown on invoices; it's unique",
    )
    assert order.primary_key == ("OrderID",)
    assert [(fk.columns, fk.ref_table, fk.on_delete) for fk in order.foreign_keys] == [
        (("Gift",), "Customer", "NO ACTION"),
        (("CustomerID",), "Customer", "CASCADE"),
    ]
    assert [(c.name, c.sql) for c in order.checks] == [("CK_Order_Qty", '"Qty" > 0')]
    assert order.column("Created").default == "CURRENT_TIMESTAMP"
    assert schema.skipped == {"use": 1, "set": 2, "alter_table": 1, "procedure": 1}
    assert schema.notes == []


def test_a_batch_without_semicolons_holds_many_statements_each_with_its_line() -> None:
    text = (
        "CREATE TABLE a (id int PRIMARY KEY)\nCREATE TABLE b (id int PRIMARY KEY,\n"
        "  a_id int REFERENCES a (id) ON DELETE SET NULL)\n"
        "IF OBJECT_ID('dbo.c', 'U') IS NOT NULL DROP TABLE dbo.c\n"
        "ALTER TABLE b SET (LOCK_ESCALATION = TABLE)\nGO\n"
    )
    pieces = [(s.text.split()[0], s.line) for s in split_statements(text, "tsql")]
    assert pieces == [("CREATE", 1), ("CREATE", 2), ("DROP", 4), ("ALTER", 5)]


@pytest.mark.parametrize(
    "name", ["tsql", "T-SQL", "mssql", "MSSQL", "sqlserver", "SQL Server", "ms-sql", "transact-sql"]
)
def test_tsql_names(name: str) -> None:
    assert resolve_dialect(name) == "tsql"


@pytest.mark.parametrize(("name", "suggested"), [("tsq", "tsql"), ("sqlservr", "tsql"), ("mysq", "mysql")])
def test_an_unknown_dialect_suggests_the_closest(name: str, suggested: str) -> None:
    with pytest.raises(SchemaError, match=f'Did you mean "{suggested}"'):
        resolve_dialect(name)


@pytest.mark.parametrize(
    "text",
    [
        "CREATE TABLE t (a int)\nGO\n",
        "CREATE TABLE [dbo].[t] ([a] [int] NULL) ON [PRIMARY]",
        "CREATE TABLE t (id int IDENTITY(1,1), n nvarchar(max))",
        "SET ANSI_NULLS ON\nCREATE TABLE [t] ([a] int)",
    ],
)
def test_tsql_is_detected(text: str) -> None:
    assert detect_dialect(text) == "tsql"
