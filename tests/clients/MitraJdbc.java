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
        }
        System.out.println("JDBC OK");
    }
}
