// pgjdbc over TLS: sslmode=require and verify-full (with the test's CA), a refused plaintext
// connection when the server requires TLS, and a wrong password over TLS.
// Usage: java MitraJdbcTls HOSTPORT CA_PEM USER PASSWORD
import java.sql.*;
import java.util.Properties;

public class MitraJdbcTls {
    static Connection connect(String url, String user, String password) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        return DriverManager.getConnection(url, p);
    }

    static String one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getString(1);
        }
    }

    public static void main(String[] a) throws Exception {
        String hostPort = a[0], ca = a[1], user = a[2], password = a[3];
        String port = hostPort.substring(hostPort.indexOf(':') + 1);
        String base = "jdbc:postgresql://" + hostPort + "/mitra";
        try (Connection c = connect(base + "?sslmode=require", user, password)) {
            System.out.println("require " + one(c, "SELECT 1"));
        }
        try (Connection c = connect("jdbc:postgresql://localhost:" + port
                + "/mitra?sslmode=verify-full&sslrootcert=" + ca, user, password)) {
            System.out.println("verify-full " + one(c, "SELECT 2"));
        }
        try (Connection c = connect(base + "?sslmode=disable", user, password)) {
            System.out.println("plaintext accepted");
        } catch (SQLException e) {
            System.out.println("plaintext refused " + e.getSQLState());
        }
        try (Connection c = connect(base + "?sslmode=require", user, password + "x")) {
            System.out.println("wrong password accepted");
        } catch (SQLException e) {
            System.out.println("wrong password " + e.getSQLState());
        }
        System.out.println("JDBC TLS OK");
    }
}
