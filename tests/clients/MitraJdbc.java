// JDBC client check for Mitra: connects, runs a prepared bm25() query with bound parameters,
// joins with metadata, and checks SQLSTATEs. Prints one line per check; exits non-zero on failure.
import java.sql.*;

public class MitraJdbc {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        String query = args[1];
        try (Connection c = DriverManager.getConnection(url, "physicist", "")) {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT b.chunk_id, b.score, b.rank, d.title FROM bm25(?, ?) b JOIN documents d ON d.doc_id = b.doc_id ORDER BY b.rank")) {
                ps.setString(1, query);
                ps.setInt(2, 3);
                // Run twice: the driver switches to a named server-side statement after a few executions.
                for (int round = 0; round < 6; round++) {
                    int n = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            n++;
                            if (rs.getLong("rank") != n) throw new AssertionError("rank order");
                            if (round == 0) System.out.println("row " + rs.getString(1) + " " + rs.getFloat(2) + " " + rs.getString(4));
                        }
                    }
                    if (n == 0) throw new AssertionError("no rows");
                }
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM chunks")) {
                rs.next();
                System.out.println("chunks " + rs.getLong(1));
            }
            // Infinite floats arrive as Postgres spells them (pgjdbc parses "Infinity", not "inf").
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT 'Infinity'::float8, '-Infinity'::float8")) {
                rs.next();
                if (rs.getDouble(1) != Double.POSITIVE_INFINITY || rs.getDouble(2) != Double.NEGATIVE_INFINITY)
                    throw new AssertionError("infinity");
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT * FROM bm25(?, ?)")) {
                ps.setString(1, query);
                ps.setInt(2, 0);
                ps.executeQuery();
                throw new AssertionError("k = 0 must fail");
            } catch (SQLException e) {
                System.out.println("sqlstate " + e.getSQLState());
                if (!"22023".equals(e.getSQLState())) throw e;
            }
            DatabaseMetaData md = c.getMetaData();
            try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE"})) {
                while (rs.next()) System.out.println("table " + rs.getString("TABLE_NAME"));
            }
            // Column metadata as DBeaver and Metabase read it.
            for (String t : new String[] {"analyses", "chunks", "documents", "ingest_runs"}) {
                try (ResultSet rs = md.getColumns(null, "public", t, "%")) {
                    while (rs.next()) {
                        System.out.println("column " + t + "." + rs.getString("COLUMN_NAME") + " "
                            + rs.getString("TYPE_NAME") + " " + rs.getInt("DATA_TYPE"));
                    }
                }
                // SELECT * on every table, every value read through its JDBC type.
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + t)) {
                    ResultSetMetaData m = rs.getMetaData();
                    while (rs.next()) {
                        for (int i = 1; i <= m.getColumnCount(); i++) rs.getObject(i);
                    }
                }
            }
            try (ResultSet rs = md.getFunctions(null, null, "%")) {
                while (rs.next()) System.out.println("function " + rs.getString("FUNCTION_NAME"));
            }
            // A timestamp parameter, and a fetch size (portal suspended and resumed).
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM documents WHERE ingested_at > ?")) {
                ps.setTimestamp(1, new Timestamp(1704067200000L));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) != 5) throw new AssertionError("timestamp parameter");
                }
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.setFetchSize(5);
                int n = 0;
                try (ResultSet rs = s.executeQuery("SELECT chunk_id, embedding FROM chunks")) {
                    while (rs.next()) {
                        Array a = rs.getArray(2);
                        Float[] v = (Float[]) a.getArray();
                        if (v.length != 16) throw new AssertionError("vector length");
                        n++;
                    }
                }
                System.out.println("fetched " + n + " rows in batches of 5");
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE documents");
                throw new AssertionError("DROP must fail");
            } catch (SQLException e) {
                System.out.println("readonly " + e.getSQLState());
                if (!"42501".equals(e.getSQLState())) throw e;
            }
        }
        System.out.println("JDBC OK");
    }
}
